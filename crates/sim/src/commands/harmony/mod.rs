//! HarmonyOS's command-line tools, which the virtual phone's shell runs when it is
//! reached through its hdc door: `uitest` (layout, input, capture), `aa` and `bm`
//! (abilities and bundles), `snapshot_display` (the screen as a JPEG or PNG file) and
//! `param` (system parameters). Android's tools are absent there, as on a HarmonyOS
//! phone. Each answers in the words the real tool prints; like them, most exit 0
//! even on failure, and callers read the text.

mod ability;
mod uitest;

use crate::device::SimDevice;
use crate::render::{self, Frame};
use crate::shell::ok;
use crate::shell::{Output, ShellEnv};

/// Runs a HarmonyOS tool; `None` when `name` is not one.
pub(super) fn run_tool(device: &SimDevice, name: &str, args: &[&str], env: &ShellEnv) -> Option<Output> {
    Some(match name {
        "uitest" => uitest::uitest(device, args, env),
        "aa" => ability::aa(device, args),
        "bm" => ability::bm(device, args),
        "snapshot_display" => snapshot_display(device, args, env),
        "param" => param(device, args),
        _ => return None,
    })
}

/// Where `snapshot_display` may write, as on a phone.
const SNAPSHOT_DIR: &str = "/data/local/tmp";

/// `snapshot_display [-i DISPLAY] [-f FILE] [-t jpeg|png] [-w W -h H]`: the screen
/// into a file under /data/local/tmp, whose suffix must match the type (JPEG by
/// default).
fn snapshot_display(device: &SimDevice, args: &[&str], env: &ShellEnv) -> Output {
    let value = |flag: &str| args.iter().position(|a| *a == flag).and_then(|i| args.get(i + 1)).copied();
    let kind = value("-t").unwrap_or("jpeg");
    if !matches!(kind, "jpeg" | "png") {
        return Output {
            stdout: format!("error: file type {kind} is not supported, must be jpeg or png\n").into_bytes(),
            stderr: Vec::new(),
            code: 255,
        };
    }
    let stamp = jiff::Timestamp::from_second(device.world().now_secs())
        .map(|t| t.strftime("%Y-%m-%d_%H-%M-%S").to_string())
        .unwrap_or_default();
    let file = value("-f").map(str::to_string).unwrap_or_else(|| format!("{SNAPSHOT_DIR}/snapshot_{stamp}.{kind}"));
    let fail = |message: String| Output { stdout: message.into_bytes(), stderr: Vec::new(), code: 255 };
    if !file.ends_with(&format!(".{kind}")) {
        return fail(format!("error: fileName {file} invalid, suffix must be .{kind}\n"));
    }
    if !file.starts_with(&format!("{SNAPSHOT_DIR}/")) || file.contains("/../") {
        return fail(format!("error: fileName {file} invalid, realpath {file} must dump at dir: {SNAPSHOT_DIR} \n"));
    }
    let frame = device.frame();
    let (w, h) = (frame.width, frame.height);
    let encoded =
        if kind == "png" { render::encode_png(&frame).map_err(|e| e.to_string()) } else { encode_jpeg(&frame) };
    let written = encoded.and_then(|bytes| env.fs.write(&file, &bytes).map_err(|e| e.to_string()));
    match written {
        Ok(()) => ok(format!(
            "process: display 0, file type: {kind}, width: {w}, height: {h}\n\nsuccess: snapshot display 0 , write to {file} as {kind}, width: {w}, height: {h}\n"
        )),
        Err(e) => fail(format!("error: snapshot display 0, write to {file} as {kind} failed! ({e})\n")),
    }
}

/// The frame as a JPEG (quality 75, as the tool writes it).
fn encode_jpeg(frame: &Frame) -> Result<Vec<u8>, String> {
    let rgb: Vec<u8> = frame.rgba.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 75)
        .encode(&rgb, frame.width, frame.height, image::ExtendedColorType::Rgb8)
        .map_err(|e| e.to_string())?;
    Ok(out)
}

/// `param get [KEY]`: the device's identity as system parameters.
fn param(device: &SimDevice, args: &[&str]) -> Output {
    let config = device.config();
    let params = [
        ("const.product.model", config.model.as_str()),
        ("const.product.name", config.product.as_str()),
        ("const.product.brand", "CodeAct"),
        ("const.product.manufacturer", "CodeAct"),
        ("const.ohos.apiversion", "12"),
        ("const.product.software.version", "HarmonyOS NEXT 5.0.0"),
        ("ohos.boot.sn", config.serial.as_str()),
    ];
    match args {
        ["get"] => ok(params.iter().map(|(k, v)| format!("{k} = {v}\n")).collect::<String>()),
        ["get", key] => match params.iter().find(|(k, _)| k == key) {
            Some((_, v)) => ok(format!("{v}\n")),
            None => ok(format!("Get parameter \"{key}\" fail! errNum is:106!\n")),
        },
        _ => ok(
            "Command list:\n    param ls [-r] [name]            :display system parameter\n    param get [name]                :get system parameter\n",
        ),
    }
}
