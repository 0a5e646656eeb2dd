/**
 * A service-account key file for the fake's JWT-bearer sign-in, so the command line (`--key-file`) serves the
 * tool's `service-account` and `adc` modes as well as the static token. It has the fields of a key Google's
 * console issues, with `token_uri` the fake's token endpoint: a client that honours it, as the tool does, signs
 * its assertion with the key and exchanges it there, and the fake checks the signature with the public half.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'

/** The `project_id` of every key the fake writes: how it knows a file it may write over. */
export const FAKE_KEY_PROJECT = 'timeline-sheets-fake'

export interface FakeServiceAccountKey {
  clientEmail: string
  publicKey: KeyObject
  /** The key file's JSON, as written. */
  json: Record<string, string>
}

/** A new RSA key for `clientEmail`, whose file sends its token requests to `tokenUrl`. */
export function newServiceAccountKey(
  tokenUrl: string,
  clientEmail = `fake-sheets@${FAKE_KEY_PROJECT}.iam.gserviceaccount.com`,
): FakeServiceAccountKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const json = {
    type: 'service_account',
    project_id: FAKE_KEY_PROJECT,
    private_key_id: `fake-${Date.now().toString(36)}`,
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: clientEmail,
    client_id: '100000000000000000000',
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: tokenUrl,
    auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
    universe_domain: 'googleapis.com',
  }
  return { clientEmail, publicKey, json }
}

/**
 * Writes a new key to `file` (owner-only, as a private key should be). A file already there is written over only
 * when the fake wrote it (its `project_id`): a real key someone names by mistake is never replaced.
 */
export async function writeServiceAccountKeyFile(file: string, tokenUrl: string): Promise<FakeServiceAccountKey> {
  const existing = await readFile(file, 'utf8').then(
    (text) => text,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined
      throw error
    },
  )
  if (existing !== undefined && !writtenByTheFake(existing)) {
    throw new Error(`${file} exists and is not a key file the Sheets fake wrote; name another path for --key-file`)
  }
  const key = newServiceAccountKey(tokenUrl)
  await writeFile(file, `${JSON.stringify(key.json, null, 2)}\n`, { mode: 0o600 })
  return key
}

function writtenByTheFake(text: string): boolean {
  try {
    return (JSON.parse(text) as { project_id?: unknown }).project_id === FAKE_KEY_PROJECT
  } catch {
    return false
  }
}
