"""Drives the virtual phone through the real Appium server (3.x, UiAutomator2 driver)
with Appium's own Python client, written the way Appium's documentation writes a
test: UiAutomator2Options with appPackage/appActivity, find by accessibility id, id,
xpath and -android uiautomator, click, send_keys, page source, screenshot, W3C
actions. Then a codeact script runs as one step inside this very session (attach
mode: `--device appium:URL#session=ID`), and the test goes on in the same session.
Prints one line per check: `ok NAME` or `FAIL NAME: why`.
Usage: python appium_client.py APPIUM_URL UDID ADB_PORT CODEACT SCRIPT (UDID and
ADB_PORT `-` for a grid, which picks the phone)."""
import base64
import subprocess
import sys
import xml.etree.ElementTree as ET

from appium import webdriver
from appium.options.android import UiAutomator2Options
from appium.webdriver.common.appiumby import AppiumBy
from selenium.common.exceptions import NoSuchElementException
from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.pointer_input import PointerInput

from checks import check, finish

url, udid, adb_port, codeact, script = sys.argv[1:6]

options = UiAutomator2Options()
if udid != "-":
    options.udid = udid
options.app_package = "com.example.notes"
options.app_activity = ".NotesListActivity"
options.no_reset = True
if adb_port != "-":
    options.set_capability("appium:adbPort", int(adb_port))
driver = webdriver.Remote(url, options=options)
try:
    check("session", bool(driver.session_id), driver.capabilities)
    check("the app under test is in front", driver.current_package == "com.example.notes", driver.current_package)

    # Find by accessibility id and click; find by id and type.
    driver.find_element(AppiumBy.ACCESSIBILITY_ID, "New note").click()
    title = driver.find_element(AppiumBy.ID, "com.example.notes:id/note_title")
    title.send_keys("Errands")
    body = driver.find_element(AppiumBy.ID, "note_body")
    body.send_keys("milk, eggs")
    check("typed text reads back", title.text == "Errands" and body.text == "milk, eggs", (title.text, body.text))
    check("attributes", title.get_attribute("resource-id") == "com.example.notes:id/note_title"
          and title.get_attribute("clickable") in ("true", "false"), title.get_attribute("resource-id"))
    check("rect", title.rect["width"] > 0 and title.rect["height"] > 0, title.rect)

    # XPath over the page source; -android uiautomator selectors.
    save = driver.find_element(AppiumBy.XPATH, "//*[@text='Save']")
    save.click()
    row = driver.find_element(AppiumBy.ANDROID_UIAUTOMATOR, 'new UiSelector().className("android.widget.TextView").textStartsWith("Errand")')
    check("the note is in the list", row.text == "Errands", row.text)
    rows = driver.find_elements(AppiumBy.XPATH, "//*[@resource-id='com.example.notes:id/note_row']")
    check("find_elements", len(rows) >= 1, len(rows))
    try:
        driver.find_element(AppiumBy.ACCESSIBILITY_ID, "No such thing here")
        check("a missing element is NoSuchElementException", False, "found")
    except NoSuchElementException:
        check("a missing element is NoSuchElementException", True)

    # The page source parses and shows the note; the screenshot is a PNG of the screen.
    source = driver.page_source
    root = ET.fromstring(source.encode())
    texts = [e.get("text") for e in root.iter()]
    check("page source", root.tag == "hierarchy" and "Errands" in texts, source[:200])
    png = base64.b64decode(driver.get_screenshot_as_base64())
    check("screenshot", png[:8] == b"\x89PNG\r\n\x1a\n", png[:8])

    # W3C actions: a touch tap on the note's row opens it.
    x = row.rect["x"] + row.rect["width"] // 2
    y = row.rect["y"] + row.rect["height"] // 2
    actions = ActionBuilder(driver, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
    actions.pointer_action.move_to_location(x, y).pointer_down().pause(0.05).release()
    actions.perform()
    opened = driver.find_elements(AppiumBy.ID, "com.example.notes:id/note_text")
    check("W3C tap opened the note", len(opened) == 1 and opened[0].text == "milk, eggs", [o.text for o in opened])
    driver.back()
    check("back", driver.find_elements(AppiumBy.ID, "com.example.notes:id/add_note") != [], driver.current_activity)

    # The clipboard (read through Appium's settings app and its input method) and apps.
    driver.set_clipboard_text("héllo 你好")
    check("clipboard", driver.get_clipboard_text() == "héllo 你好", driver.get_clipboard_text())
    driver.activate_app("com.android.settings")
    check("activate_app", driver.current_package == "com.android.settings", driver.current_package)
    driver.terminate_app("com.android.settings")
    check("terminate_app", driver.query_app_state("com.android.settings") == 1, driver.query_app_state("com.android.settings"))

    # A codeact script as one step of this test, in this very session (Settings
    # stopped above, so it starts on its main screen whatever ran before).
    ran = subprocess.run([codeact, "exec", script, "--device", f"appium:{url}#session={driver.session_id}"],
                         capture_output=True, text=True, timeout=120)
    check("codeact ran inside the session", ran.returncode == 0 and "1 passed" in ran.stdout + ran.stderr,
          ran.stdout[-500:] + ran.stderr[-500:])
    # ... which is still this test's: it goes on.
    check("the session goes on after codeact", driver.current_package == "com.android.settings", driver.current_package)
    switch = driver.find_element(AppiumBy.ID, "com.android.settings:id/wifi_switch")
    check("codeact's step left Wi-Fi off", switch.get_attribute("checked") == "false", switch.get_attribute("checked"))
finally:
    driver.quit()
finish()
