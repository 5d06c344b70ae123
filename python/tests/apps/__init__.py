"""Small apps the tests serve in a subprocess (slipstream run tests_apps.module:app)."""
