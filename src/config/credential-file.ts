/**
 * Credential files the user hands us (a Google service-account key, gcloud's
 * application default credentials): read once, parsed as JSON, never written.
 * What the contents mean is the sign-in code's business; this module only says
 * whether the file could be read and was JSON, so that each caller words its
 * own error for the setting the user has to fix.
 */
import { readFile } from 'node:fs/promises'

export type CredentialRead =
  | { kind: 'json'; json: unknown }
  | { kind: 'not-json' }
  /** `code` is the system error code (ENOENT, EACCES, …) or the error's text. */
  | { kind: 'unreadable'; code: string }

export async function readCredentialFile(file: string): Promise<CredentialRead> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    return { kind: 'unreadable', code: (error as NodeJS.ErrnoException).code ?? String(error) }
  }
  try {
    return { kind: 'json', json: JSON.parse(text) as unknown }
  } catch {
    // JSON.parse quotes the text around the fault, which may be a private key: no detail.
    return { kind: 'not-json' }
  }
}
