"""What the console's browser scripts share: a headless Chromium (Debian's, with its chromedriver,
where ./ops/test says they are) and the API called as an app."""
import json
import os
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service


def browser():
    options = Options()
    options.binary_location = os.environ.get("ATELIER_TEST_CHROMIUM", "/usr/bin/chromium")
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1280,900", "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    service = Service(os.environ.get("ATELIER_TEST_CHROMEDRIVER", "/usr/bin/chromedriver"))
    return webdriver.Chrome(service=service, options=options)


def api(url, app_token, method, path, body=None):
    """`method` `path` on the server at `url` as the app `app_token`; the JSON answer."""
    request = urllib.request.Request(url + path, method=method, headers={"X-App-Token": app_token, "Content-Type": "application/json"},
                                     data=json.dumps(body).encode() if body is not None else None)
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)
