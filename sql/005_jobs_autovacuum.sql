-- The job queue churns (every claim updates a row, every finished job is
-- deleted): vacuum it eagerly so claims do not wade through dead entries.
ALTER TABLE jobs SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000,
                      autovacuum_vacuum_cost_delay = 0, autovacuum_analyze_scale_factor = 0.05);
