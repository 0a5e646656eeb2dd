/**
 * The config's JSON Schema comes from the zod schema and ships in the package, a "$schema" key in the
 * config is accepted so editors can use it, and every config message writes a field's path one way.
 */
import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { configJsonSchema, configJsonSchemaText } from '../../src/config/json-schema.ts'
import { fieldPath, parseConfig } from '../../src/config/load.ts'
import { TimelineSheetsError } from '../../src/errors.ts'

const minimal = {
  timeline: { auth: { mode: 'password', baseUrl: 'http://127.0.0.1:8080', username: 'transfer@example.com' } },
  targets: [{ name: 'team-a', spreadsheet: { kind: 'workbook', path: 'team-a.xlsx' }, timeZone: 'Europe/Berlin' }],
}

function problemsOf(json: unknown): string {
  try {
    parseConfig(JSON.stringify(json), '/cfg/timeline-sheets.json')
  } catch (error) {
    expect(error).toBeInstanceOf(TimelineSheetsError)
    return (error as Error).message
  }
  throw new Error('expected the config to be refused')
}

describe('the config JSON Schema', () => {
  it('the checked-in config.schema.json is what the zod schema generates (npm run build rewrites it)', async () => {
    const checkedIn = await readFile(new URL('../../config.schema.json', import.meta.url), 'utf8')
    expect(checkedIn, 'config.schema.json is out of date: run npm run build').toBe(configJsonSchemaText())
  })

  it('describes what a person writes: required fields, defaults, no unknown keys, and "$schema"', () => {
    const schema = configJsonSchema() as {
      $schema: string
      required: string[]
      additionalProperties: boolean
      properties: Record<string, { default?: unknown; type?: string }>
    }
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema')
    expect(schema.required.sort()).toEqual(['targets', 'timeline'])
    expect(schema.additionalProperties).toBe(false)
    expect(schema.properties['$schema']).toEqual({ type: 'string', description: expect.stringContaining('config.schema.json') })
    expect(schema.properties['stateDir']).toMatchObject({ type: 'string', default: '.timeline-sheets' })
  })

  it('every property, at every depth and in every variant, has a description an editor can show', () => {
    const undescribed: string[] = []
    let properties = 0
    const walk = (node: unknown, at: string): void => {
      if (node === null || typeof node !== 'object') return
      const schema = node as Record<string, unknown>
      for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Record<string, unknown>>)) {
        properties++
        if (typeof property.description !== 'string' || property.description.trim() === '') undescribed.push(`${at}.${name}`)
        walk(property, `${at}.${name}`)
      }
      for (const key of ['items', 'oneOf', 'anyOf', 'allOf', 'additionalProperties']) {
        const inner = schema[key]
        if (Array.isArray(inner)) inner.forEach((variant, i) => walk(variant, `${at}(${key} ${i})`))
        else walk(inner, at)
      }
      for (const [name, definition] of Object.entries((schema.$defs ?? {}) as Record<string, unknown>)) walk(definition, `$defs.${name}`)
    }
    walk(configJsonSchema(), 'config')
    expect(undescribed).toEqual([])
    // The walk reached the variants and the targets' fields, not just the top level.
    expect(properties).toBeGreaterThan(50)
  })

  it('is shipped in the package, and config.example.json points at it', async () => {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { files: string[] }
    expect(pkg.files).toContain('config.schema.json')
    const example = JSON.parse(await readFile(new URL('../../config.example.json', import.meta.url), 'utf8')) as Record<string, unknown>
    expect(example['$schema']).toBe('./config.schema.json')
  })

  it('accepts a "$schema" key in the config', () => {
    const { config } = parseConfig(JSON.stringify({ $schema: './config.schema.json', ...minimal }), '/cfg/timeline-sheets.json')
    expect(config.targets[0]!.name).toBe('team-a')
  })
})

describe('config error paths are written one way', () => {
  it.each([
    [['targets', 0, 'window', 'days'], 'targets[0].window.days'],
    [['timeline', 'auth', 'baseUrl'], 'timeline.auth.baseUrl'],
    [['targets', 12, 'users', 3], 'targets[12].users[3]'],
    [['stateDir'], 'stateDir'],
  ])('%j is %s', (path, written) => {
    expect(fieldPath(path)).toBe(written)
  })

  it('schema problems and the checks after it use the same form', () => {
    const schema = problemsOf({ ...minimal, targets: [{ ...minimal.targets[0], window: { days: 0 } }] })
    expect(schema).toContain('targets[0].window.days:')
    expect(schema).not.toContain('targets.0')
    const zone = problemsOf({ ...minimal, targets: [{ ...minimal.targets[0], timeZone: 'Mars/Olympus' }] })
    expect(zone).toContain('targets[0].timeZone:')
  })
})
