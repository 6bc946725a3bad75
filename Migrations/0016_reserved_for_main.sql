-- 0016 — a stand-in, on the `schedules` branch only: 0016 belongs to a migration being written on
-- main at the same time, and the migrator wants the versions without gaps, so this branch keeps
-- the number with a statement that changes nothing. Dropped when the branch is merged (the
-- merge takes main's 0016 and renumbers 0017_schedules.sql after main's last migration).
SELECT 1;
