import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { Agent } from 'undici'
import { describe, expect, it } from 'vitest'
import { undiciAgent } from '../../src/http/agent.ts'

describe('the transport’s connection pool', () => {
  it('is the Agent undici exports', () => {
    expect(undiciAgent()).toBe(Agent)
  })

  it('is loaded without undici’s index (its fetch, WebSocket, cache and mock layers)', () => {
    const agentModule = new URL('../../src/http/agent.ts', import.meta.url).href
    const script = `
      const { undiciAgent } = await import(${JSON.stringify(agentModule)})
      await new (undiciAgent())({}).close()
      const { createRequire } = await import('node:module')
      console.log(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)))
    `
    const loaded = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as string[]
    expect(loaded.some((file) => file.endsWith('/undici/lib/dispatcher/agent.js'))).toBe(true)
    expect(loaded).not.toContain(createRequire(import.meta.url).resolve('undici'))
  })
})
