-- The users table and its ten initial users, ids in insertion order (1..10 on one server; on a
-- Galera cluster ids step by the cluster size).
-- The service applies this file itself on start (and `npm run db:init` does so on demand):
-- the table is created when missing and seeded only then; existing data is never touched.
-- This is the base table only: its indexes (email, name, created_at) are added by the versioned
-- migrations (src/db/statements.ts, recorded in schema_migrations), on a new table as on an old one.

CREATE TABLE IF NOT EXISTS users (
  id INT AUTO_INCREMENT PRIMARY KEY,
  name VARCHAR(100) NOT NULL,
  email VARCHAR(100) NOT NULL,
  created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

INSERT INTO users (name, email) VALUES
  ('John Doe', 'john@example.com'),
  ('Jane Smith', 'jane@example.com'),
  ('Alice Johnson', 'alice@example.com'),
  ('Bob Brown', 'bob@example.com'),
  ('Charlie Davis', 'charlie@example.com'),
  ('Diana Evans', 'diana@example.com'),
  ('Ethan Foster', 'ethan@example.com'),
  ('Fiona Garcia', 'fiona@example.com'),
  ('George Harris', 'george@example.com'),
  ('Hannah Irving', 'hannah@example.com');
