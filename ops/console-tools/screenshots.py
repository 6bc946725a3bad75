"""Screenshots of every console page at desktop (1280×900) and phone (390×844) width, for
docs/console/. Selenium drives Debian's Chromium headless against a running stack.

  python screenshots.py URL EMAIL PASSWORD OUT_DIR
"""
import os
import sys

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

URL, EMAIL, PASSWORD, OUT = sys.argv[1:5]
SIZES = {"desktop": (1280, 900), "phone": (390, 844)}


def browser():
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--hide-scrollbars",
                     "--force-device-scale-factor=1"):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def full_page(driver, path, width, height):
    """The whole page, not only the first screen: the viewport is set to the document's height."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})
    total = driver.execute_script("return document.documentElement.scrollHeight")
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": min(max(height, total), 4000), "deviceScaleFactor": 1, "mobile": width < 600})
    driver.save_screenshot(path)


def main():
    os.makedirs(OUT, exist_ok=True)
    driver = browser()
    wait = WebDriverWait(driver, 30)
    try:
        driver.set_window_size(*SIZES["desktop"])
        driver.get(URL + "/admin/login")
        for name, (w, h) in SIZES.items():
            full_page(driver, f"{OUT}/sign-in-{name}.png", w, h)
        driver.find_element(By.ID, "email").send_keys(EMAIL)
        driver.find_element(By.ID, "password").send_keys(PASSWORD)
        driver.find_element(By.ID, "signin").click()
        wait.until(lambda d: d.find_element(By.TAG_NAME, "h1").text == "Overview")
        failed = None
        driver.get(URL + "/admin/jobs?state=failed")
        links = driver.find_elements(By.CSS_SELECTOR, "#jobs-table tbody a")
        if links:
            failed = links[0].get_attribute("href")
        pages = {"overview": "/admin", "jobs": "/admin/jobs", "workers": "/admin/workers", "queues": "/admin/queues"}
        for page, path in pages.items():
            driver.get(URL + path)
            # Live pages: once their stream is open (the status line says so).
            if driver.find_elements(By.ID, "live-status"):
                wait.until(lambda d: d.find_element(By.ID, "live-status").text.startswith("Live"))
            for name, (w, h) in SIZES.items():
                full_page(driver, f"{OUT}/{page}-{name}.png", w, h)
        if failed:
            driver.get(failed)
            for name, (w, h) in SIZES.items():
                full_page(driver, f"{OUT}/job-{name}.png", w, h)
        print("screenshots in", OUT)
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
