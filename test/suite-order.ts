/**
 * The order vitest starts test files in when it knows no durations (a fresh clone, CI). Vitest then starts the
 * largest files first, and the files that run longest are small ones: a 4-line file that runs 200 trials, a table
 * of scenarios that starts the CLI 186 times. Started last, any one of them runs on after the rest of the suite
 * has finished. This list starts them first, longest first, as vitest does itself once its cache holds durations.
 * A file missing here costs time, never a result; test/suite-order.test.ts checks that each entry names a test file.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/** Relative to the repository, longest first (alone on an idle 2-core machine). */
export const LONGEST_FIRST = [
  'test/scenarios/scenarios.test.ts',
  'test/e2e/kill-sync-writes.e2e.test.ts',
  'test/e2e/kill-sync-recovery.e2e.test.ts',
  'test/engine/concurrent-manager-google.test.ts',
  'test/engine/concurrent-manager-workbook.test.ts',
  'test/sheets/google.contract.test.ts',
  'test/e2e/fuzz-import.e2e.test.ts',
  'test/e2e/kill-sync-google.e2e.test.ts',
  'test/e2e/faults-sync.e2e.test.ts',
  'test/hostile/hung-services.e2e.test.ts',
  'test/hostile/timeouts.e2e.test.ts',
  'test/engine/watch-google-lag.test.ts',
]

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    if (files.every((spec) => this.ctx.cache.getTestSpecificationResult(spec))) return sorted
    const rank = (spec: TestSpecification) => {
      const i = LONGEST_FIRST.findIndex((file) => spec.moduleId.endsWith(`/${file}`))
      return i === -1 ? LONGEST_FIRST.length : i
    }
    // Array.prototype.sort is stable: the rest keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b))
  }
}
