import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/config/load.ts'

describe('config.example.json', () => {
  it('is a valid config, so copying it is a working start', async () => {
    const text = await readFile(new URL('../../config.example.json', import.meta.url), 'utf8')
    const { config } = parseConfig(text, '/example/config.example.json')
    expect(config.targets.map((t) => t.name)).toEqual(['team-a', 'office-local'])
  })
})
