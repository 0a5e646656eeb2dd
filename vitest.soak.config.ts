// `npm run soak`: the tests that run a process for as long as their claim needs (a watch's memory over 24,000
// intervals), alone, after `npm test` in CI: beside other test files their samples move with the machine's load.
import { configDefaults, defineConfig } from 'vitest/config'
import suite, { SOAK_TESTS } from './vitest.config.ts'

export default defineConfig({
  ...suite,
  test: {
    ...suite.test,
    include: [SOAK_TESTS],
    exclude: configDefaults.exclude,
    // They start no CLI (watch-memory.run.ts runs the watch in a process of its own from src/), so no bundle.
    globalSetup: [],
  },
})
