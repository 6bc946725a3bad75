"""The operator console in a real browser: Selenium drives Debian's Chromium (headless) through
chromedriver against a real Atelier server (started by ConsoleBrowserTests.swift).

  python console_flow.py URL ADMIN_EMAIL NON_ADMIN_EMAIL PASSWORD APP_TOKEN

A non-admin is refused; an admin signs in, watches the job list, sees a job enqueued through the
API appear live, opens it, cancels it through the confirmation and sees it cancelled; a form
whose CSRF token was tampered with changes nothing; "Cancel all matching" counts the queued jobs,
asks, and shows the bulk action to its end; the Queues page shows a schedule's next run. Prints one line per step; exits non-zero
(with the step and the page's text) on the first failure.
"""
import sys
import traceback

from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select
from selenium.webdriver.support.ui import WebDriverWait

import browser_support
from browser_support import browser

URL, ADMIN, NON_ADMIN, PASSWORD, APP_TOKEN = sys.argv[1:6]
# Upper bounds only: each wait ends as soon as its condition holds. While the browser goes from
# one page to the next (or the live script replaces a row), an element may vanish under the
# condition — not there yet, stale, its frame detached: look again.
PATIENCE = 60
SETTLING = (WebDriverException,)


def waiting(driver):
    return WebDriverWait(driver, PATIENCE, ignored_exceptions=SETTLING)


def api(method, path, body=None):
    return browser_support.api(URL, APP_TOKEN, method, path, body)


def heading(driver):
    return driver.find_element(By.TAG_NAME, "h1").text


def sign_in(driver, email):
    driver.get(URL + "/admin/login")
    driver.find_element(By.ID, "email").send_keys(email)
    driver.find_element(By.ID, "password").send_keys(PASSWORD)
    driver.find_element(By.ID, "signin").click()
    waiting(driver).until(lambda d: "/admin/login" not in d.current_url or d.find_elements(By.CSS_SELECTOR, "p.error"))


def click(driver, selector):
    """Clicks the element once it is there; if the page replaced it before the click, finds it again.
    Any other error is the test's failure (a click that happened is never repeated)."""
    def attempt(d):
        try:
            d.find_element(By.CSS_SELECTOR, selector).click()
            return True
        except StaleElementReferenceException:
            return False
    WebDriverWait(driver, PATIENCE, ignored_exceptions=(NoSuchElementException,)).until(attempt)


def step(text):
    print("ok -", text, flush=True)


def main():
    driver = browser()
    try:
        run(driver)
    except Exception as error:  # the page as the browser saw it, to tell why
        print("FAILED:", repr(error), getattr(error, "msg", ""), file=sys.stderr)
        traceback.print_exc()
        try:
            print("at", driver.current_url, file=sys.stderr)
            print(driver.find_element(By.TAG_NAME, "body").text[:3000], file=sys.stderr)
        except Exception:
            pass
        sys.exit(1)
    finally:
        driver.quit()


def run(driver):
    wait = waiting(driver)

    sign_in(driver, NON_ADMIN)
    assert heading(driver) == "Not an operator", heading(driver)
    driver.get(URL + "/admin")
    assert "/admin/login" in driver.current_url, "a refused user has no session: " + driver.current_url
    step("a user without the admin role is refused")

    sign_in(driver, ADMIN)
    assert heading(driver) == "Overview", heading(driver)
    step("an admin signs in and sees the overview")

    driver.get(URL + "/admin/jobs")
    wait.until(lambda d: d.find_element(By.ID, "live-status").text.startswith("Live"))
    job = api("POST", "/v1/jobs", {"kind": "noop"})["id"]
    wait.until(lambda d: "queued" in d.find_element(By.ID, "job-" + job).text)
    step("a job enqueued through the API appears in the open job list, live")

    click(driver, "#job-" + job + " a")
    wait.until(lambda d: d.find_element(By.TAG_NAME, "h1").text.startswith("noop job"))
    click(driver, "a.button.cancel")
    wait.until(lambda d: d.find_element(By.TAG_NAME, "h1").text.startswith("Cancel job"))
    click(driver, "#confirm-cancel")
    wait.until(lambda d: "done=cancel" in d.current_url and d.find_element(By.CSS_SELECTOR, ".facts .badge").text == "cancelled")
    assert api("GET", "/v1/jobs/" + job)["state"] == "cancelled"
    step("the job is opened, cancelled after the confirmation, and shown cancelled")

    other = api("POST", "/v1/jobs", {"kind": "noop"})["id"]
    driver.get(URL + "/admin/jobs/" + other + "/cancel")
    driver.execute_script("document.querySelector(\"form.confirm input[name='csrf']\").value = 'forged-token'")
    click(driver, "#confirm-cancel")
    wait.until(lambda d: d.find_element(By.TAG_NAME, "h1").text == "The form has expired")
    assert api("GET", "/v1/jobs/" + other)["state"] == "queued"
    step("a form with a forged CSRF token is refused and changes nothing")

    driver.get(URL + "/admin/jobs?state=queued&kind=noop")
    click(driver, "#bulk-cancel")
    wait.until(lambda d: d.find_element(By.TAG_NAME, "h1").text == "Cancel all matching jobs?")
    count = int(driver.find_element(By.ID, "bulk-count").get_attribute("data-count"))
    assert count >= 1, count
    assert api("GET", "/v1/jobs/" + other)["state"] == "queued", "counting is not doing"
    click(driver, "#confirm-bulk")
    wait.until(lambda d: d.find_element(By.ID, "bulk-action").get_attribute("data-state") == "done")
    assert driver.find_element(By.ID, "bulk-acted").text == str(count), driver.find_element(By.ID, "bulk-acted").text
    assert api("GET", "/v1/jobs/" + other)["state"] == "cancelled"
    step("every queued noop job is cancelled from the Jobs page: a count, a confirmation, its progress")

    driver.get(URL + "/admin/queues")
    row = wait.until(lambda d: d.find_element(By.ID, "schedule-nightly"))
    assert "30 2 * * *" in row.text and "02:30:00" in row.text, row.text
    assert row.find_element(By.TAG_NAME, "time").is_displayed(), "the next run is on screen"
    step("the Queues page shows a schedule with its next run")

    Select(driver.find_element(By.CSS_SELECTOR, "#limits-form select[name='kind']")).select_by_value("noop")
    driver.find_element(By.CSS_SELECTOR, "#limits-form input[name='concurrency']").send_keys("3")
    driver.find_element(By.CSS_SELECTOR, "#limits-form input[name='rate']").send_keys("10/m")
    click(driver, "#limits-form button[type='submit']")
    row = wait.until(lambda d: d.find_element(By.ID, "limits-noop"))
    assert "10/m" in row.text and "3" in row.text, row.text
    click(driver, "#limits-noop button")
    wait.until(lambda d: not d.find_elements(By.ID, "limits-noop"))
    step("a kind's limits are set from the Queues page, shown, and cleared")


if __name__ == "__main__":
    main()
