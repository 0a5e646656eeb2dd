/**
 * The config file's JSON Schema, generated from the zod schema that validates it, so that an editor checks and
 * completes the file with the same rules the tool applies. `npm run build` writes it to config.schema.json
 * (shipped in the package); a test keeps the checked-in copy equal to what the zod schema generates.
 */
import { z } from 'zod'
import { configSchema } from './schema.ts'

/** The schema of what a person writes (defaults make fields optional), not of the parsed result. */
export function configJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(configSchema, { io: 'input' }),
    title: 'timeline-sheets config',
    description: 'Config of timeline-sheets. Secrets never go in this file: fields ending in Env name environment variables.',
  }
}

/** The file's text: stable key order and a final newline, so that the checked-in copy diffs cleanly. */
export function configJsonSchemaText(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`
}
