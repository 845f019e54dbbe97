"""A test written from Appium's documentation with Appium's own Python client
(Appium-Python-Client from PyPI), run against `codeact serve --webdriver`: a note
is added by accessibility id, id and XPath with keys sent and text asserted, the
page source and a screenshot read, a contact list swiped by W3C actions, and a
whole flow sent as Rhai through execute_driver. Prints `ok ...` per step; any
failure raises.

usage: webdriver_appium.py SERVER_URL android|ios|harmony
"""

import base64
import sys
import time

from appium import webdriver
from appium.options.android import UiAutomator2Options
from appium.options.common import AppiumOptions
from appium.options.ios import XCUITestOptions
from appium.webdriver.common.appiumby import AppiumBy
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.pointer_input import PointerInput

url, platform = sys.argv[1], sys.argv[2]
android = platform == "android"
ios = platform == "ios"


def options(app):
    if android:
        o = UiAutomator2Options()
        o.app_package = app
    elif platform == "harmony":
        o = AppiumOptions()
        o.platform_name = "HarmonyOS"
        o.set_capability("appium:appPackage", app)
    else:
        o = XCUITestOptions()
        o.bundle_id = app
    o.automation_name = "codeact"
    o.new_command_timeout = 120
    return o


driver = webdriver.Remote(url, options=options("com.example.notes"))
driver.implicitly_wait(3)
try:
    assert "New note" in driver.page_source
    print("ok page source")

    # XCUITest's accessibility id is the element's name: its identifier when it has one.
    driver.find_element(AppiumBy.ACCESSIBILITY_ID, "add_note" if ios else "New note").click()
    print("ok accessibility id")

    title = driver.switch_to.active_element
    title.send_keys("Shopping")
    assert title.text == "Shopping", title.text
    print("ok active element takes keys")

    body = driver.find_element(AppiumBy.ID, "note_body")
    body.send_keys("milk, eggs")
    assert body.text == "milk, eggs", body.text
    print("ok id and send keys")

    save = "//*[@label='Save']" if ios else "//*[@text='Save']"
    driver.find_element(AppiumBy.XPATH, save).click()
    note = "//*[@label='Shopping']" if ios else "//*[@text='Shopping']"
    found = driver.find_element(AppiumBy.XPATH, note)
    assert found.text == "Shopping" and found.is_displayed(), found.text
    r = found.rect
    assert r["width"] > 0 and r["height"] > 0, r
    print("ok xpath, text and rect")

    png = driver.get_screenshot_as_png()
    assert png[:8] == b"\x89PNG\r\n\x1a\n", png[:8]
    print("ok screenshot", len(png))

    driver.activate_app("com.android.contacts")
    before = driver.page_source
    size = driver.get_window_size()
    x = size["width"] // 2
    actions = ActionChains(driver)
    actions.w3c_actions = ActionBuilder(driver, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
    actions.w3c_actions.pointer_action.move_to_location(x, int(size["height"] * 0.8))
    actions.w3c_actions.pointer_action.pointer_down()
    actions.w3c_actions.pointer_action.pause(0.05)
    actions.w3c_actions.pointer_action.move_to_location(x, int(size["height"] * 0.3))
    actions.w3c_actions.pointer_action.release()
    actions.perform()
    assert driver.page_source != before, "the list did not move"
    print("ok W3C swipe")

    if android:
        scroll = 'new UiScrollable(new UiSelector().scrollable(true)).scrollIntoView(new UiSelector().text("李四"))'
        driver.find_element(AppiumBy.ANDROID_UIAUTOMATOR, scroll).click()
        assert driver.find_element(AppiumBy.ANDROID_UIAUTOMATOR, 'new UiSelector().textStartsWith("+86 139")').is_displayed()
        print("ok UiScrollable scrolled to the contact")
    else:
        print("ok (UiScrollable is Android's)")

    flow = """
start_app("com.android.settings");
let before = wait_for(#{id: "wifi_switch"}).checked;
tap(#{id: "wifi_switch"});
print(`Wi-Fi was ${before}`);
#{before: before, after: wait_for(#{id: "wifi_switch"}).checked}
"""
    started = time.time()
    response = driver.execute_driver(script=flow, script_type="rhai")
    assert response.result == {"before": True, "after": False}, response.result
    assert response.logs["log"] == ["Wi-Fi was true"], response.logs
    print("ok execute_driver rhai", round(time.time() - started, 3))

    try:
        driver.execute_driver(script="let x = ;", script_type="rhai")
        raise AssertionError("a script that does not parse was answered")
    except Exception as e:  # the client raises the server's W3C error
        assert "line 1" in str(e), str(e)
    print("ok a broken script is an error with its line")

    try:
        driver.execute_driver(script="return 1", script_type="webdriverio")
        raise AssertionError("a webdriverio script was run")
    except Exception as e:
        assert "rhai" in str(e), str(e)
    print("ok other script types refused")

    driver.back()
    print("ok back")
finally:
    driver.quit()
print("ok quit")
