// A test written from WebdriverIO's and Appium's documentation with WebdriverIO
// (npm), run against `codeact serve --webdriver`: a note is added by accessibility
// id, a UiSelector (Android) or XPath (iOS), keys set and text asserted, the page
// source and a screenshot read, a contact list swiped with W3C actions, and a Rhai
// flow sent with executeDriverScript. Prints `ok ...` per step; a failure exits 1.
//
// usage: node webdriver_wdio.mjs SERVER_URL android|ios WDIO_DIR
//   (WDIO_DIR: where `npm install webdriverio@9.33.1` ran)
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [url, platform, wdio] = process.argv.slice(2);
const { remote } = await import(pathToFileURL(join(wdio, 'node_modules/webdriverio/build/index.js')).href);

const android = platform === 'android';
const at = new URL(url);
const ok = (what) => console.log(`ok ${what}`);
const check = (cond, what) => { if (!cond) throw new Error(`FAIL ${what}`); };

const driver = await remote({
  hostname: at.hostname,
  port: Number(at.port),
  path: at.pathname,
  logLevel: 'error',
  connectionRetryCount: 0,
  capabilities: android
    ? { platformName: 'Android', 'appium:automationName': 'codeact', 'appium:appPackage': 'com.example.notes' }
    : { platformName: 'iOS', 'appium:automationName': 'codeact', 'appium:bundleId': 'com.example.notes' },
});
try {
  await driver.setTimeout({ implicit: 3000 });
  check((await driver.getPageSource()).includes('New note'), 'page source');
  ok('page source');

  await driver.$(android ? '~New note' : '~add_note').click();
  ok('accessibility id');

  const title = android ? await driver.$('android=new UiSelector().resourceId("com.example.notes:id/note_title")') : await driver.$('//*[@name="note_title"]');
  await title.setValue('Shopping');
  const body = android ? await driver.$('android=new UiSelector().resourceId("com.example.notes:id/note_body")') : await driver.$('//*[@name="note_body"]');
  await body.setValue('milk, eggs');
  check((await body.getText()) === 'milk, eggs', `setValue: ${await body.getText()}`);
  ok(android ? 'UiSelector and setValue' : 'xpath and setValue');

  await driver.$(android ? '//*[@text="Save"]' : '//*[@label="Save"]').click();
  check(await driver.$(android ? '//*[@text="Shopping"]' : '//*[@label="Shopping"]').isDisplayed(), 'the note is listed');
  ok('xpath and isDisplayed');

  const png = Buffer.from(await driver.takeScreenshot(), 'base64');
  check(png.subarray(0, 4).toString('latin1') === '\x89PNG', 'screenshot');
  ok('screenshot');

  await driver.activateApp('com.android.contacts');
  const before = await driver.getPageSource();
  const { width, height } = await driver.getWindowSize();
  await driver
    .action('pointer', { parameters: { pointerType: 'touch' } })
    .move({ x: Math.round(width / 2), y: Math.round(height * 0.8) })
    .down()
    .pause(50)
    .move({ duration: 300, x: Math.round(width / 2), y: Math.round(height * 0.3) })
    .up()
    .perform();
  check((await driver.getPageSource()) !== before, 'the list moved');
  ok('W3C swipe');

  const flow = 'start_app("com.android.settings");\ntap(#{id: "wifi_switch"});\nprint("tapped");\nwait_for(#{id: "wifi_switch"}).checked';
  const answer = await driver.executeDriverScript(flow, 'rhai');
  check(answer.result === false && answer.logs.log[0] === 'tapped', `executeDriverScript: ${JSON.stringify(answer)}`);
  ok('executeDriverScript rhai');
} finally {
  await driver.deleteSession();
}
ok('deleteSession');
