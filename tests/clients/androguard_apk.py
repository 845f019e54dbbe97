"""What androguard (an independent APK parser, Debian's package) reads from APKs:
package, main activity, activities and permissions, one JSON object per APK path
given, in order. codeact's tests compare `codeact apk info --json` with it."""
import json
import logging
import sys

logging.disable(logging.CRITICAL)
try:  # androguard 4
    from androguard.core.apk import APK
except ImportError:  # androguard 3 (Debian 12)
    from androguard.core.bytecodes.apk import APK

for path in sys.argv[1:]:
    apk = APK(path)
    print(json.dumps({
        "path": path,
        "package": apk.get_package(),
        "main_activity": apk.get_main_activity(),
        "activities": list(apk.get_activities()),
        # Ours lists uses-permission-sdk-23 too; androguard keeps those apart.
        "permissions": sorted(set(apk.get_permissions())
                              | set(apk.get_all_attribute_value("uses-permission-sdk-23", "name"))),
        "label": apk.get_app_name(),
        "version_code": apk.get_androidversion_code(),
    }))
