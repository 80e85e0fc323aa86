"""The adversarial suite's pieces (grader/tests/adversarial_test.py is its driver): files
(digests, the warm course copy), cases (case.json, slots, submissions), grading (the
grader's command under `grader dev supervise`, the listener) and checks (each verdict)."""
