-- The sample's H2 file database. Seed 002's ETL job reads "database A" (review), joins
-- "database B" (app_user), writes "database C" (review_result) and keeps its checkpoint.
-- Rows are generated at startup by SampleData (sample.etl.rows), only into empty tables.

CREATE TABLE IF NOT EXISTS app_user (
    id      INT PRIMARY KEY,
    name    VARCHAR(64) NOT NULL,
    country CHAR(2)     NOT NULL
);

CREATE TABLE IF NOT EXISTS review (
    id      BIGINT PRIMARY KEY,
    user_id INT          NOT NULL,
    stars   INT          NOT NULL,
    body    VARCHAR(200) NOT NULL
);

-- Written by the load stage with MERGE (overwrite by review id): a batch loaded after the last
-- checkpoint is simply loaded again on resume, as seed 002 prescribes.
CREATE TABLE IF NOT EXISTS review_result (
    review_id BIGINT PRIMARY KEY,
    user_name VARCHAR(64) NOT NULL,
    country   CHAR(2)     NOT NULL,
    sentiment INT         NOT NULL,
    words     INT         NOT NULL,
    batch_no  BIGINT      NOT NULL
);

-- The checkpoint: the last review id whose batch went through every stage.
CREATE TABLE IF NOT EXISTS etl_checkpoint (
    job        VARCHAR(32) PRIMARY KEY,
    last_id    BIGINT      NOT NULL,
    batches    BIGINT      NOT NULL,
    rows_done  BIGINT      NOT NULL,
    state      VARCHAR(16) NOT NULL,
    updated_at TIMESTAMP   NOT NULL
);

-- Why the last run failed (state FAILED), shown again after a restart; added to databases made
-- before it had the column.
ALTER TABLE etl_checkpoint ADD COLUMN IF NOT EXISTS error VARCHAR(1000);

-- One row per checkpointed batch, saved in the same transaction as the checkpoint; the keys make
-- a batch saved twice an error, and the ranges prove none was skipped.
CREATE TABLE IF NOT EXISTS etl_batch (
    batch_no     BIGINT    PRIMARY KEY,
    first_id     BIGINT    NOT NULL UNIQUE,
    last_id      BIGINT    NOT NULL UNIQUE,
    row_count    INT       NOT NULL,
    committed_at TIMESTAMP NOT NULL
);
