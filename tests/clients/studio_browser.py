"""Drives `codeact studio` in a real headless Chromium with Selenium (clients codeact
did not write), as a person would: waits for the live screen, records opening
Settings, clicks the Wi-Fi switch on the mirror and reads the selector it shows,
taps it in Act mode, asserts it is off, and saves the script. Prints one line per
check: `ok NAME` or `FAIL NAME: why`; the saved script's path last.
Usage: python studio_browser.py URL SAVE_AS SCREENSHOT SWITCH_ID SETTINGS_APP."""
import os
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from checks import check, finish

url, save_as, screenshot, switch_id, settings_app = sys.argv[1:6]

options = webdriver.ChromeOptions()
for arg in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1500,1100"]:
    options.add_argument(arg)
driver = webdriver.Chrome(service=Service(os.environ.get("CODEACT_CHROMEDRIVER", "/usr/bin/chromedriver")), options=options)


def wait(what, cond, seconds=20):
    end = time.time() + seconds
    while time.time() < end:
        try:
            value = cond()
            if value:
                return value
        except Exception:  # the page is still loading
            pass
        time.sleep(0.1)
    return None


def element_bounds(resource_id):
    return driver.execute_script(
        "const e = state.tree.elements.find((e) => e.id === arguments[0] && e.visible); return e ? e.bounds : null;",
        resource_id,
    )


def click_mirror(bounds):
    """Clicks the mirror where the element is on the phone."""
    img = driver.find_element(By.ID, "screen")
    size = driver.execute_script("return state.tree.screen;")
    cx, cy = (bounds[0] + bounds[2]) / 2, (bounds[1] + bounds[3]) / 2
    dx = cx * img.size["width"] / size[0] - img.size["width"] / 2
    dy = cy * img.size["height"] / size[1] - img.size["height"] / 2
    ActionChains(driver).move_to_element_with_offset(img, int(dx), int(dy)).click().perform()


def mode(name):
    driver.find_element(By.CSS_SELECTOR, f"input[name=mode][value={name}]").click()


try:
    driver.get(url)
    shown = wait("the screen", lambda: driver.execute_script("const i = document.getElementById('screen'); return i.complete && i.naturalWidth > 0;"))
    check("the live screen shows", shown, "no picture")
    fps = wait("fps", lambda: driver.find_element(By.ID, "fps").text)
    check("it says how the phone is pictured", bool(fps) and "pictures by " in fps, fps)
    still = wait("still", lambda: "still" in driver.find_element(By.ID, "fps").text)
    check("a screen that does not move is said to be still", still, driver.find_element(By.ID, "fps").text)
    icon = driver.execute_script(
        "const r = new XMLHttpRequest(); r.open('GET', '/favicon.ico', false); r.send(); return r.status;"
    )
    check("the browser's favicon request is answered without an error", icon in (200, 204), icon)

    # Record: open Settings from the page.
    driver.find_element(By.ID, "from-app").click()  # start from nothing: the script opens the app
    driver.find_element(By.ID, "record").click()
    wait("recording", lambda: driver.find_element(By.ID, "record").is_selected())
    driver.find_element(By.ID, "package").send_keys(settings_app)
    driver.find_element(By.ID, "open").click()
    there = wait("Settings", lambda: element_bounds(switch_id))
    check("Settings is open, its tree beside the screen", there is not None, driver.find_element(By.ID, "where").text)

    # Point at the switch on the mirror: its selector, unique.
    mode("inspect")
    click_mirror(there)
    chosen = wait("a selector", lambda: driver.find_elements(By.CSS_SELECTOR, ".candidate.chosen")[0])
    source = chosen.find_element(By.TAG_NAME, "code").text if chosen else ""
    fares = chosen.find_element(By.CLASS_NAME, "fares").text if chosen else ""
    check("the switch's selector", source == '#{id: "%s"}' % switch_id, source)
    check("said unique, with its lookup time", "unique" in fares and "µs" in fares, fares)
    print("selector " + source, flush=True)

    # Act on the mirror: tap it; it turns off.
    mode("act")
    click_mirror(there)
    off = wait("the switch off", lambda: driver.execute_script(
        "const e = state.tree.elements.find((e) => e.id === arguments[0]); return e && !e.checked;", switch_id))
    check("tapping the mirror toggled it", off, "still on")

    # Assert it is off, from the element.
    mode("inspect")
    click_mirror(there)
    wait("picked, off", lambda: driver.execute_script(
        "return state.picked && state.picked.element && state.picked.element.checked === false;"))
    driver.find_element(By.ID, "assert-state").click()
    script = wait("the recorded script", lambda: "checked" in driver.find_element(By.ID, "script").text and driver.find_element(By.ID, "script").text)
    check("the recording", script and "start_app(" in script and 'tap(#{id: "%s"})' % switch_id in script, script)

    field = driver.find_element(By.ID, "save-path")
    field.clear()
    field.send_keys(save_as)
    driver.find_element(By.ID, "save").click()
    saved = wait("saved", lambda: driver.find_element(By.ID, "saved").text)
    check("saved", saved and saved.startswith("saved "), saved)
    driver.save_screenshot(screenshot)
    print("script " + (script or "").replace("\n", "\\n"), flush=True)
finally:
    driver.quit()
finish()
