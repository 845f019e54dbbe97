"""codeact's own locators through Appium's Python client: `-custom` (a description
the server's vision model locates) and `-image` (a picture, here the element
screenshot of the Notes icon, sent as base64), each finding the app on the
launcher and opening it; and a picture of a place painted on the map's canvas (one
view in the page source), tapped where it was found — its tag name, score and
visual answered as Appium's image elements answer them.

usage: webdriver_locators.py SERVER_URL GALLERY_NAME CAFE_PNG
"""

import base64
import sys

from appium import webdriver
from appium.options.android import UiAutomator2Options
from appium.webdriver.common.appiumby import AppiumBy

options = UiAutomator2Options()
options.automation_name = "codeact"
driver = webdriver.Remote(sys.argv[1], options=options)
try:
    icon = driver.find_element(AppiumBy.CUSTOM, "the notes app icon")
    icon.click()
    assert "New note" in driver.page_source, "the notes app did not open"
    print("ok -custom found and opened the notes app")

    driver.press_keycode(3)  # HOME
    picture = driver.find_element(AppiumBy.XPATH, "//*[@text='Notes']").screenshot_as_base64
    driver.find_element(AppiumBy.IMAGE, picture).click()
    assert "New note" in driver.page_source, "the notes app did not open"
    print("ok -image found and opened the notes app")

    driver.press_keycode(3)
    driver.find_element(AppiumBy.IMAGE, sys.argv[2]).click()
    assert "New note" in driver.page_source, "the notes app did not open"
    print("ok -image by a gallery name opened the notes app")

    driver.activate_app("com.codeact.maps")
    with open(sys.argv[3], "rb") as f:
        cafe = base64.b64encode(f.read()).decode()
    place = driver.find_element(AppiumBy.IMAGE, cafe)
    assert place.tag_name == "codeact.Image", place.tag_name
    assert float(place.get_attribute("score")) > 0.8, place.get_attribute("score")
    assert len(base64.b64decode(place.get_attribute("visual"))) > 100, "the matched part of the screen"
    rect = place.rect
    canvas = driver.find_element(AppiumBy.XPATH, "//*[@content-desc='Map']").rect
    assert rect["width"] < canvas["width"] / 4, (rect, canvas)
    place.click()
    driver.find_element(AppiumBy.ID, "save_place").click()
    print(f"ok a place painted on the map is tapped where its picture was found {rect}")

    try:
        driver.find_element(AppiumBy.IMAGE, "not a picture!")
        raise AssertionError("a picture that is not one was looked for")
    except Exception as e:
        assert "base64" in str(e), str(e)
    print("ok a bad picture is an error")
finally:
    driver.quit()
