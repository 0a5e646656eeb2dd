/**
 * How a run tells the person or the scheduler watching it what it is doing: the engine's side of the
 * CLI's reporter (src/cli/reporter.ts prints it; tests and benchmarks pass a silent one).
 */
export interface Reporter {
  info(message: string, fields?: Record<string, unknown>): void
  warn(message: string, fields?: Record<string, unknown>): void
  debug(message: string, fields?: Record<string, unknown>): void
  progress(label: string, done: number, total: number): void
  endProgress(): void
}

/** Says nothing: for tests, benchmarks and runs whose caller reports by itself. */
export const silentReporter: Reporter = {
  info: () => undefined,
  warn: () => undefined,
  debug: () => undefined,
  progress: () => undefined,
  endProgress: () => undefined,
}
