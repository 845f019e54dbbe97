"""Drives the virtual phone's WebDriverAgent door with the facebook-wda client (a
client codeact did not write), as a test engineer's script would, and prints one
line per check: `ok NAME` or `FAIL NAME: why`. Usage: python facebook_wda.py URL."""
import base64
import sys
import xml.etree.ElementTree as ET

import wda
from checks import NEW_APPS, check, finish

url = sys.argv[1]


def element(source, **attrs):
    for e in ET.fromstring(source.encode()).iter():
        if all(e.get(k) == v for k, v in attrs.items()):
            return e
    return None


def centre(e):
    return (int(e.get("x")) + int(e.get("width")) // 2, int(e.get("y")) + int(e.get("height")) // 2)


c = wda.Client(url)
check("status", c.status().get("ready") is True, c.status())
s = c.session("com.android.settings")
check("session", bool(s.session_id), s)
info = c.app_current()
check("app_current", info.get("bundleId") == "com.android.settings", info)
size = s.window_size()
check("window_size", (size.width, size.height) == (360, 800), size)
check("scale", c.scale == 3, c.scale)
shot = c.screenshot()
check("screenshot", shot.size == (1080, 2400), shot.size)

source = c.source()
switch = element(source, type="XCUIElementTypeSwitch", name="wifi_switch")
check("source has the Wi-Fi switch on", switch is not None and switch.get("value") == "1", source[:300])
x, y = centre(switch)
s.click(x, y)
after = element(c.source(), type="XCUIElementTypeSwitch", name="wifi_switch")
check("a tap turns it off", after is not None and after.get("value") == "0", after.attrib if after is not None else None)

c.home()
check("home", c.app_current().get("bundleId") != "com.android.settings", c.app_current())
s.app_launch("com.example.notes")
check("app_launch", c.app_current().get("bundleId") == "com.example.notes", c.app_current())
new_note = element(c.source(), label="New note")
check("notes has New note", new_note is not None)
s.click(*centre(new_note))
s.send_keys("Shopping")
title = element(c.source(), type="XCUIElementTypeTextField")
check("typed into the focused field", title is not None and title.get("value") == "Shopping",
      title.attrib if title is not None else None)
s.set_clipboard("copied 你好")
# (get_clipboard asks Siri to bring WDA to the front first: its request alone.)
pasted = base64.b64decode(s._session_http.post("/wda/getPasteboard").value).decode()
check("the pasteboard keeps what was set", pasted == "copied 你好", pasted)
s.app_stop("com.example.notes")
check("app_stop", c.app_current().get("bundleId") != "com.example.notes", c.app_current())
try:
    s.press("volumeUp")
    check("press volumeUp", True)
except Exception as e:  # noqa: BLE001
    check("press volumeUp", False, e)
try:
    s.app_launch("com.example.nothing")
    check("launching an app that is not there is an error", False, "no error")
except wda.WDARequestError as e:
    check("launching an app that is not there is an error", "not installed" in str(e), e)
# The apps the bigger suite added: each one's first screen in WDA's page source.
for bundle, anchor in NEW_APPS.items():
    s.app_launch(bundle)
    source = c.source()
    check(f"page source of {bundle}", element(source, name=anchor) is not None, source[:300])
s.app_launch("com.codeact.forms")
s.click(*centre(element(c.source(), name="form_signup")))
s.click(*centre(element(c.source(), name="signup_submit")))
error = element(c.source(), name="signup_error")
check("the sign-up form says what is wrong", error is not None and error.get("label") == "Enter your name",
      error.attrib if error is not None else None)
s.close()
check("closed", c.status().get("sessionId") is None, c.status())
finish()
