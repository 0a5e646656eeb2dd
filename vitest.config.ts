import os from 'node:os'
import path from 'node:path'
import { configDefaults, defineConfig } from 'vitest/config'
import { LongestFirst } from './test/suite-order.ts'

// The suite starts the CLI (and the counterparts' CLIs) hundreds of times: every process it starts, test
// workers included, reuses Node's compiled code and stripped TypeScript from one folder instead of
// compiling exceljs, undici, zod and our modules again (Node checks each entry against its source).
process.env.NODE_COMPILE_CACHE ??= path.join(os.tmpdir(), 'timeline-sheets-test-compile-cache')

/** The soak tests: `npm run soak` runs them (vitest.soak.config.ts), in a step of CI's own after `npm test`. */
export const SOAK_TESTS = '**/*.soak.test.ts'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'counterparts/**/*.test.ts'],
    exclude: [...configDefaults.exclude, SOAK_TESTS],
    // The e2e runs start the bundle the package ships, built before the first file (bundle-setup.ts says how it
    // can never be older than src/).
    globalSetup: ['test/e2e/bundle-setup.ts'],
    // Each file gets its own process: msw interception in one file must not
    // catch the loopback servers another file starts.
    pool: 'forks',
    // Vitest's default is one worker fewer than there are cores: one on a 2-core machine, so a file that
    // waits (retry back-offs, timeouts, subprocesses) leaves the machine idle. One file more than there are
    // cores keeps it busy while one of them waits; files that start CLIs share the cores.
    maxWorkers: os.availableParallelism() + 1,
    // Without durations (a fresh clone) vitest starts the largest files first; the longest are small ones.
    sequence: { sequencer: LongestFirst },
    // A test that starts the CLI a few times takes up to about 5 s on an idle 2-core machine, a setup
    // about as long; these budgets hold at 5× slower beside a second file.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})
