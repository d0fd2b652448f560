-- Who runs the first request of an idempotency key ("<host>/<boot id>/<pid
-- namespace>:<pid>", as a book step's owner): when that process is provably
-- gone (an httpd child killed while the request ran) the key is taken over
-- at once by its next request instead of answering 409
-- idempotency_key_in_use until the 10-minute limit.
ALTER TABLE idempotent_requests ADD COLUMN owner text;
