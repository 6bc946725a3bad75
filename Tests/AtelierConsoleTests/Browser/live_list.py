"""The job list's live rows in a real browser, many times over: Selenium drives Debian's Chromium
(headless) against a real Atelier server with a worker (started by ConsoleLiveListBrowserTests.swift).

  python live_list.py URL ADMIN_EMAIL PASSWORD APP_TOKEN ITERATIONS FINAL_STATE

An admin signs in; then, ITERATIONS times: open the job list, enqueue a `sleep` job through the
API and wait for its row, then for the row to say FINAL_STATE — `succeeded` when a worker runs
the job at once (the page may first hear of it queued, running or already finished), `queued`
when its queue is paused (no event ever tells of it: only the feed's look at the newest jobs,
or the stream's opening rows, can bring it). Every other iteration enqueues as soon as the page
is loaded, before its live stream is open; the others once the page says it is live. Prints one
line per iteration and a summary; exits non-zero if any row never came (upper bound PATIENCE
seconds each: the wait ends as soon as the row is there).
"""
import os
import sys
import time
import traceback

from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

import browser_support
from browser_support import browser

URL, ADMIN, PASSWORD, APP_TOKEN = sys.argv[1:5]
ITERATIONS = int(sys.argv[5])
FINAL_STATE = sys.argv[6]
PATIENCE = float(os.environ.get("ATELIER_TEST_LIVE_PATIENCE", "30"))


def api(method, path, body=None):
    return browser_support.api(URL, APP_TOKEN, method, path, body)


def waiting(driver):
    # The live script replaces rows while we look: a vanished element means "look again".
    return WebDriverWait(driver, PATIENCE, poll_frequency=0.05, ignored_exceptions=(WebDriverException,))


def row_state(driver, job):
    rows = driver.find_elements(By.ID, "job-" + job)
    return rows[0].get_attribute("data-state") if rows else None


def main():
    driver = browser()
    try:
        driver.get(URL + "/admin/login")
        driver.find_element(By.ID, "email").send_keys(ADMIN)
        driver.find_element(By.ID, "password").send_keys(PASSWORD)
        driver.find_element(By.ID, "signin").click()
        waiting(driver).until(lambda d: d.find_element(By.TAG_NAME, "h1").text == "Overview")
        missed = []
        for iteration in range(ITERATIONS):
            early = iteration % 2 == 0
            driver.get(URL + "/admin/jobs")
            if not early:
                waiting(driver).until(lambda d: d.find_element(By.ID, "live-status").text.startswith("Live"))
            job = api("POST", "/v1/jobs", {"kind": "sleep", "options": {"ms": 20}})["id"]
            start = time.monotonic()
            try:
                first = waiting(driver).until(lambda d: row_state(d, job))
                waiting(driver).until(lambda d: row_state(d, job) == FINAL_STATE)
                print(f"ok - iteration {iteration + 1}: enqueued {'before' if early else 'after'} the stream opened;"
                      f" the row came {first}, then was {FINAL_STATE} ({time.monotonic() - start:.2f} s)", flush=True)
            except TimeoutException:
                seen = row_state(driver, job)
                missed.append(iteration + 1)
                print(f"MISSED - iteration {iteration + 1}: enqueued {'before' if early else 'after'} the stream opened;"
                      f" job {job} ({api('GET', '/v1/jobs/' + job)['state']}): row {seen or 'absent'} after {PATIENCE:g} s", flush=True)
        print(f"{ITERATIONS - len(missed)} of {ITERATIONS} rows came live", flush=True)
        if missed:
            sys.exit(1)
    except SystemExit:
        raise
    except Exception as error:
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


if __name__ == "__main__":
    main()
