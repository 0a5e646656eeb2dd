/**
 * Scenario tests as data (bisync style): every folder under test/scenarios
 * with a scenario.txt is played against the workbook backend and the Google
 * backend (Sheets fake) with the CLI as a subprocess, and what it printed and
 * left behind is compared with golden/. Both backends share one set of golden
 * files; where a backend rightly shows something else (typed text Google
 * parses but a workbook keeps as text), golden/<backend>/<file> overrides it.
 *
 * UPDATE_GOLDEN=1 npx vitest run test/scenarios   rewrites the golden files.
 */
import { existsSync, readdirSync } from 'node:fs'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS, type BackendName } from './drivers.ts'
import { GOLDEN_FILES, runScenario, type ScenarioOutput } from './runner.ts'

const here = path.dirname(fileURLToPath(import.meta.url))
const update = process.env.UPDATE_GOLDEN === '1'
const folders = readdirSync(here, { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(path.join(here, d.name, 'scenario.txt')))
  .map((d) => d.name)
  .sort()

describe.each(folders)('scenario %s', (name) => {
  const folder = path.join(here, name)
  const golden = path.join(folder, 'golden')
  const outputs = new Map<BackendName, ScenarioOutput>()

  beforeAll(async () => {
    // Both backends at once: each has its own reference server, spreadsheet and state.
    const runs = await Promise.all(BACKENDS.map(async (b) => [b, await runScenario(folder, b)] as const))
    for (const [b, out] of runs) outputs.set(b, out)
  }, 120_000)

  it.each(BACKENDS)('%s backend matches golden/', async (backend) => {
    const out = outputs.get(backend)!
    const shared = outputs.get(BACKENDS[0]!)!
    for (const [field, file] of Object.entries(GOLDEN_FILES) as [keyof ScenarioOutput, string][]) {
      const override = path.join(golden, backend, file)
      if (update) {
        if (backend === BACKENDS[0]) {
          await mkdir(golden, { recursive: true })
          await writeFile(path.join(golden, file), out[field])
        } else if (out[field] === shared[field]) {
          await rm(override, { force: true })
        } else {
          await mkdir(path.dirname(override), { recursive: true })
          await writeFile(override, out[field])
        }
        continue
      }
      const expectedFile = existsSync(override) ? override : path.join(golden, file)
      const expected = existsSync(expectedFile)
        ? await readFile(expectedFile, 'utf8')
        : `(missing ${path.relative(here, expectedFile)}; run with UPDATE_GOLDEN=1)`
      expect(out[field], `${name}/${path.relative(folder, expectedFile)} on the ${backend} backend (UPDATE_GOLDEN=1 rewrites it)`).toBe(
        expected,
      )
    }
  })
})
