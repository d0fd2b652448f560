-- Dashboard logins: the name httpd's authentication hands the dashboard
-- (REMOTE_USER) mapped to a user of one organization. A login without a row
-- gets 403; `travelctl dashboard grant|revoke` keeps the table.
CREATE TABLE dashboard_logins (
    login       text PRIMARY KEY CHECK (length(login) BETWEEN 1 AND 200),
    org_id      text NOT NULL REFERENCES organizations (id),
    user_id     text NOT NULL REFERENCES users (id),
    created_at  timestamptz NOT NULL DEFAULT trv_now()
);
CREATE INDEX dashboard_logins_org ON dashboard_logins (org_id);
