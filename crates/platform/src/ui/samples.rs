//! Small screens the layers' tests share (a sample is data, not a fixture file, so a
//! test anywhere above can build one). Not for the runtime: nothing here is shown
//! to a user.

#![allow(clippy::expect_used)]

use crate::ui::tree::UiTree;

/// Two labelled switches and a search field (the selector tests' screen).
pub fn switches() -> UiTree {
    let xml = r#"<hierarchy rotation="0">
<node class="android.widget.FrameLayout" bounds="[0,0][1080,2400]">
<node class="android.widget.LinearLayout" resource-id="p:id/wifi_row" bounds="[0,100][1080,200]">
<node class="android.widget.TextView" text="Wi-Fi" bounds="[0,100][500,200]" clickable="true" />
<node class="android.widget.Switch" resource-id="p:id/wifi_switch" checkable="true" checked="true" bounds="[600,100][700,200]" />
</node>
<node class="android.widget.LinearLayout" resource-id="p:id/bt_row" bounds="[0,300][1080,400]">
<node class="android.widget.TextView" text="Bluetooth" bounds="[0,300][500,400]" clickable="true" />
<node class="android.widget.Switch" resource-id="p:id/bt_switch" checkable="true" bounds="[600,300][700,400]" />
</node>
<node class="android.widget.EditText" text="" hint="Search" bounds="[0,500][500,600]" />
</node>
</hierarchy>"#;
    super::parse(xml.as_bytes(), (1080, 2400)).expect("the sample parses")
}

/// WDA's format: a Settings Wi-Fi screen at scale 3 (393×852 pt).
pub const IOS_WIFI: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Settings" label="Settings" enabled="true" visible="true" accessible="false" x="0" y="0" width="393" height="852" index="0" traits="" processId="412" bundleId="com.apple.Preferences">
  <XCUIElementTypeWindow type="XCUIElementTypeWindow" enabled="true" visible="true" accessible="false" x="0" y="0" width="393" height="852" index="0" traits="">
<XCUIElementTypeTable type="XCUIElementTypeTable" enabled="true" visible="true" accessible="false" x="0" y="103" width="393" height="749" index="0" traits="">
  <XCUIElementTypeCell type="XCUIElementTypeCell" name="Wi-Fi" label="Wi-Fi" enabled="true" visible="true" accessible="false" x="16" y="123" width="361" height="52" index="0" traits="">
    <XCUIElementTypeStaticText type="XCUIElementTypeStaticText" value="Wi-Fi" name="Wi-Fi" label="Wi-Fi" enabled="true" visible="true" accessible="false" x="32" y="138" width="44" height="22" index="0" traits="StaticText"/>
    <XCUIElementTypeSwitch type="XCUIElementTypeSwitch" value="1" name="wifi_switch" label="Wi-Fi" enabled="true" visible="true" accessible="true" x="310" y="133" width="51" height="31" index="1" traits="Button"/>
  </XCUIElementTypeCell>
  <XCUIElementTypeCell type="XCUIElementTypeCell" name="HomeNet" label="HomeNet" enabled="true" visible="true" accessible="true" x="16" y="175" width="361" height="44" index="1" traits="Button, Selected"/>
  <XCUIElementTypeTextField type="XCUIElementTypeTextField" value="Network Name" name="Name" label="Name" enabled="true" visible="true" accessible="true" x="110" y="240" width="267" height="44" index="2" placeholderValue="Network Name" traits=""/>
  <XCUIElementTypeSecureTextField type="XCUIElementTypeSecureTextField" value="••••" name="Password" label="Password" enabled="true" visible="false" accessible="true" x="110" y="300" width="267" height="44" index="3" placeholderValue="Password" traits=""/>
</XCUIElementTypeTable>
  </XCUIElementTypeWindow>
</XCUIElementTypeApplication>
"#;

/// uitest's format: the output of `uitest dumpLayout -p F && cat F`.
pub const HARMONY_SETTINGS: &str = concat!(
    "DumpLayout saved to:/data/local/tmp/layout.json\n",
    r#"{"attributes":{"bounds":"[0,0][1260,2720]","type":"","text":""},"children":[{"attributes":{"abilityName":"EntryAbility","bounds":"[0,123][1260,2720]","bundleName":"com.huawei.hmos.settings","checkable":"false","checked":"false","clickable":"false","description":"","enabled":"true","focused":"false","hint":"","id":"","key":"","longClickable":"false","scrollable":"false","selected":"false","text":"","type":"root","visible":"true"},"children":[{"attributes":{"bounds":"[0,200][1260,380]","clickable":"true","enabled":"true","type":"ListItem","visible":"true"},"children":[{"attributes":{"bounds":"[48,250][400,330]","text":"WLAN","type":"Text","visible":"true"},"children":[]},{"attributes":{"bounds":"[1080,250][1212,330]","checkable":"true","checked":"true","clickable":"true","id":"wifi_switch","type":"Toggle","visible":"true"},"children":[]}]},{"attributes":{"bounds":"[48,420][1212,540]","hint":"Search","focused":"true","type":"TextInput","visible":"true"},"children":[]}]},{"attributes":{"bundleName":"com.ohos.sceneboard","bounds":"[0,0][1260,123]","type":"WindowScene"},"children":[]}]}"#,
    "\n"
);
