// Loaded (--import) into every test file's process by scripts/test.ts. The file reports to the runner over its stdout,
// a pipe, which Node writes asynchronously on Linux; --test-force-exit then exits with report frames still queued, and
// the runner silently counts fewer tests (nodejs/node#64833: 1,947–1,990 of 2,000 here). Blocking writes reach the
// pipe before the exit.
(process.stdout as unknown as { _handle?: { setBlocking?(on: boolean): void } })._handle?.setBlocking?.(true);
