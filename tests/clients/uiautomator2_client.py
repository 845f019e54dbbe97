"""Drives the virtual phone with uiautomator2's own Python client (a client codeact
did not write), through the adb server in $ANDROID_ADB_SERVER_PORT, as a test
engineer's script would: the client checks and pushes its server jar, starts the
server with app_process over an adb shell stream, and talks JSON-RPC to device port
9008 through adb. Prints one line per check: `ok NAME` or `FAIL NAME: why`.
Usage: python uiautomator2_client.py SERIAL."""
import sys
import xml.etree.ElementTree as ET

import uiautomator2 as u2
from checks import NEW_APPS, check, finish

serial = sys.argv[1]


def centre(node):
    l, t, r, b = [int(v) for v in node.get("bounds").replace("][", ",").strip("[]").split(",")]
    return (l + r) // 2, (t + b) // 2


def find(xml, **attrs):
    for node in ET.fromstring(xml.encode()).iter("node"):
        if all(node.get(k) == v for k, v in attrs.items()):
            return node
    return None


d = u2.connect(serial)
info = d.info
check("deviceInfo", info.get("displayWidth") == 1080 and info.get("sdkInt", 0) >= 30, info)
check("ping", d.jsonrpc.ping() == "pong")

d.press("home")
d.app_start("com.example.notes", stop=True)
xml = d.dump_hierarchy()
check("dump has the notes list", find(xml, **{"resource-id": "com.example.notes:id/add_note"}) is not None, xml[:300])
add = find(xml, **{"resource-id": "com.example.notes:id/add_note"})
if add is not None:
    d.click(*centre(add))
    xml = d.dump_hierarchy()
    title = find(xml, **{"resource-id": "com.example.notes:id/note_title"})
    check("click opened the editor", title is not None, xml[:300])
    d.set_clipboard("Milk")
    check("clipboard", d.clipboard == "Milk", d.clipboard)
    if title is not None:
        d.click(*centre(title))
        d.send_keys("Milk")
        xml = d.dump_hierarchy()
        check("typed by paste", find(xml, text="Milk") is not None, xml[:300])

# Selectors, as a uiautomator2 script finds things: exist, count, objInfo, waits,
# click (objInfo, then a click at its centre), setText/getText.
d.app_start("com.android.settings", stop=True)
check("selector exists", d(text="Wi-Fi").exists and not d(text="No such row").exists)
switch = d(resourceId="com.android.settings:id/wifi_switch")
was = switch.info.get("checked")
switch.click()
check("selector click", switch.wait(timeout=2) and switch.info.get("checked") != was, switch.info)
check("selector count", d(className="android.widget.Switch").count >= 2, d(className="android.widget.Switch").count)
check("textMatches is a whole match", d(textMatches="Wi-.i").exists and not d(textMatches="Wi").exists)
try:
    d(text="No such row").info
    check("objInfo of nothing is an error", False, "no error")
except Exception as e:  # UiObjectNotFoundError
    check("objInfo of nothing is an error", "UiObjectNotFound" in repr(e) or "32002" in str(e), repr(e))
d.app_start("com.example.notes", stop=True)
d(resourceId="com.example.notes:id/add_note").click()
field = d(className="android.widget.EditText", instance=0)
field.set_text("Eggs and ham")
check("setText / getText", field.get_text() == "Eggs and ham", field.get_text())

shot = d.screenshot()  # takeScreenshot over JSON-RPC: a base64 JPEG
check("screenshot", shot.size == (1080, 2400) and shot.format == "JPEG", (shot.size, shot.format))
d.press("back")
d.press("home")
check("home", d.app_current().get("package") == "com.android.launcher3", d.app_current())
try:
    d.jsonrpc.noSuchMethod()
    check("unknown method is an error", False, "no error")
except Exception as e:  # the client's own exception for -32601
    check("unknown method is an error", "32601" in str(e) or "method not found" in str(e).lower(), repr(e))

# The apps the bigger suite added: each one's first screen as uiautomator2 dumps it,
# then the shop's catalogue, product page and cart through its selectors.
for package, anchor in NEW_APPS.items():
    d.app_start(package, stop=True)
    xml = d.dump_hierarchy()
    check(f"page source of {package}", find(xml, **{"resource-id": f"{package}:id/{anchor}"}) is not None, xml[:300])
d.app_start("com.codeact.shop", stop=True)
d(text="Wireless Mouse").click()
check("a product page", d(resourceId="com.codeact.shop:id/add_to_cart").exists, d.dump_hierarchy()[:300])
d(text="Add to cart").click()
check("the cart counts it", d(textContains="In the cart: 1 · $25").exists, d.dump_hierarchy()[:300])

d.stop_uiautomator()
finish()
