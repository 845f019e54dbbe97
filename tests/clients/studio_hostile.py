"""Opens `codeact studio` in a real headless Chromium (Selenium) on a phone whose
screen shows hostile labels (markup, control characters), and checks the page
shows them as text: no element, script or handler of theirs comes alive, and the
page's title stays its own. Prints `ok NAME` or `FAIL NAME: why` per check.
Usage: python studio_hostile.py URL MARKER."""
import os
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from checks import check, finish

url, marker = sys.argv[1:3]
options = webdriver.ChromeOptions()
for arg in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000"]:
    options.add_argument(arg)
driver = webdriver.Chrome(service=Service(os.environ.get("CODEACT_CHROMEDRIVER", "/usr/bin/chromedriver")), options=options)
try:
    driver.get(url)
    rows = []
    end = time.time() + 20
    while time.time() < end and not rows:
        rows = [r.text for r in driver.find_elements(By.CSS_SELECTOR, "#tree li") if marker in r.text]
        time.sleep(0.2)
    check("the label is in the tree, as text", rows and "<img" in rows[0] and "<script>" in rows[0], rows[:1])
    images = driver.execute_script("return Array.from(document.images).map((i) => i.id);")
    check("no element of the label's came alive", sorted(images) == ["screen", "step-img"], images)
    check("no script of the label's ran", driver.title == "codeact studio" and not driver.execute_script("return window.pwned === true;"), driver.title)
    scripts = driver.execute_script("return document.scripts.length;")
    check("only the page's own script", scripts == 1, scripts)
finally:
    driver.quit()
finish()
