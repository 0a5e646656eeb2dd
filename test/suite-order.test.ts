import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { LONGEST_FIRST } from './suite-order.ts'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

describe('the order a fresh clone starts test files in', () => {
  it('names only test files that exist, each once', () => {
    expect(LONGEST_FIRST.filter((file) => !existsSync(path.join(root, file)) || !file.endsWith('.test.ts'))).toEqual([])
    expect(new Set(LONGEST_FIRST).size).toBe(LONGEST_FIRST.length)
  })
})
