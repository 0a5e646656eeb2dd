/**
 * Issue 9: backends are registered through one map, so a third one needs a
 * folder, a config branch and an entry — no engine change. These tests hold
 * the map and the config schema to each other, and show the map is the only
 * way a target's spreadsheet is opened.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { SPREADSHEET_BACKENDS, openSpreadsheet } from '../../src/cli/spreadsheet-backends.ts'
import { openTargetSpreadsheet } from '../../src/cli/wiring.ts'
import { parseConfig } from '../../src/config/load.ts'
import { configJsonSchema } from '../../src/config/json-schema.ts'
import { silentReporter } from '../../src/cli/reporter.ts'

const folders: string[] = []
afterEach(async () => {
  for (const f of folders.splice(0)) await rm(f, { recursive: true, force: true })
})

/** The `kind` values the config's JSON Schema (generated from zod) allows for a target's spreadsheet. */
function configKinds(): string[] {
  const kinds: string[] = []
  const walk = (node: unknown, underSpreadsheet: boolean): void => {
    if (Array.isArray(node)) return node.forEach((n) => walk(n, underSpreadsheet))
    if (node === null || typeof node !== 'object') return
    const record = node as Record<string, unknown>
    const kind = (record['properties'] as Record<string, { const?: unknown }> | undefined)?.['kind']
    if (underSpreadsheet && typeof kind?.const === 'string') kinds.push(kind.const)
    for (const [key, value] of Object.entries(record)) walk(value, underSpreadsheet || key === 'spreadsheet')
  }
  walk(configJsonSchema(), false)
  return kinds
}

test('every spreadsheet kind the config accepts has exactly one opener, and no opener lacks a config branch', () => {
  expect(Object.keys(SPREADSHEET_BACKENDS).sort()).toEqual([...new Set(configKinds())].sort())
  expect(Object.keys(SPREADSHEET_BACKENDS).sort()).toEqual(['google', 'workbook'])
})

test('a target opens through the map: the backend it returns says the kind the config named', async () => {
  const folder = await mkdtemp(path.join(tmpdir(), 'ts-backends-'))
  folders.push(folder)
  const parsed = parseConfig(
    JSON.stringify({
      timeline: { auth: { mode: 'password', baseUrl: 'http://127.0.0.1:1', username: 'u', passwordEnv: 'P' } },
      targets: [{ name: 't', spreadsheet: { kind: 'workbook', path: 'book.xlsx' }, timeZone: 'Europe/Berlin' }],
    }),
    path.join(folder, 'timeline-sheets.json'),
  )
  const loaded = { ...parsed, file: path.join(folder, 'timeline-sheets.json') }
  const target = loaded.config.targets[0]!
  const viaWiring = await openTargetSpreadsheet(loaded, target, silentReporter, {})
  const viaMap = await openSpreadsheet(target.spreadsheet, { loaded, target, reporter: silentReporter, env: {}, network: {} })
  expect(viaWiring.kind).toBe('workbook')
  expect(viaMap.kind).toBe('workbook')
  expect(viaWiring.describe()).toBe(path.join(folder, 'book.xlsx'))
})

test('a Google target without a "google" section is refused by its opener with the way out', async () => {
  const parsed = parseConfig(
    JSON.stringify({
      timeline: { auth: { mode: 'password', baseUrl: 'http://127.0.0.1:1', username: 'u', passwordEnv: 'P' } },
      targets: [{ name: 'g', spreadsheet: { kind: 'workbook', path: 'x.xlsx' }, timeZone: 'Europe/Berlin' }],
    }),
    '/cfg/timeline-sheets.json',
  )
  const loaded = { ...parsed, file: '/cfg/timeline-sheets.json' }
  const target = { ...loaded.config.targets[0]!, spreadsheet: { kind: 'google' as const, spreadsheetId: 'abcdefghijkl' } }
  await expect(
    openSpreadsheet(target.spreadsheet, { loaded, target, reporter: silentReporter, env: {}, network: {} }),
  ).rejects.toMatchObject({
    code: 'TS_CONFIG_INVALID',
    message: expect.stringContaining('Target g uses a Google spreadsheet'),
  })
})
