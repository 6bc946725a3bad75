// The generated `Client` (every operation of openapi.yaml, typed) is this module's API for now.
