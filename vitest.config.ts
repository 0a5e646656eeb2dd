import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'counterparts/**/*.test.ts'],
    // Each file gets its own process: msw interception in one file must not
    // catch the loopback servers another file starts.
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
})
