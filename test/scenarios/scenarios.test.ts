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

/**
 * Scenarios played at once, each on both backends (its own reference server, spreadsheet and state): this file
 * starts the CLI 186 times, one run after another within a scenario, the longest chain of the suite, while the
 * kill files beside it run five cases at a time. Three at a time gives it about as many processes as they have.
 */
const AT_ONCE = 3
/** A scenario's describe block, as describe.each below names it. */
const title = (name: string) => `scenario ${name}`
const turns = new Map(folders.map((name) => [name, Promise.withResolvers<Map<BackendName, ScenarioOutput>>()]))
// Each scenario's own describe block awaits its turn and reports its failure; until then nobody else should.
for (const turn of turns.values()) turn.promise.catch(() => undefined)

// eslint-disable-next-line no-empty-pattern -- vitest reads a hook's first parameter as fixtures, by destructuring
beforeAll(({}, file) => {
  // Only the scenarios left to run (`-t <name>` skips the others' blocks), in the order their blocks run.
  const running = new Set(file.tasks.filter((t) => t.type === 'suite' && t.mode === 'run').map((t) => t.name))
  const queue = folders.filter((name) => running.has(title(name)))
  for (let slot = 0; slot < AT_ONCE; slot++) {
    void (async () => {
      for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
        const turn = turns.get(name)!
        await playBoth(path.join(here, name)).then(turn.resolve, turn.reject)
      }
    })()
  }
})

async function playBoth(folder: string): Promise<Map<BackendName, ScenarioOutput>> {
  return new Map(await Promise.all(BACKENDS.map(async (b) => [b, await runScenario(folder, b)] as const)))
}

describe.each(folders)('scenario %s', (name) => {
  const folder = path.join(here, name)
  const golden = path.join(folder, 'golden')
  let outputs = new Map<BackendName, ScenarioOutput>()

  // A scenario takes 5-20 s on an idle 2-core machine, and may wait for the ones before it: this holds at 5x slower.
  beforeAll(async () => {
    outputs = await turns.get(name)!.promise
  }, 300_000)

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
