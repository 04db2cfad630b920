"""make autobahn-perf: the Autobahn testsuite's section 9, timed."""
