/**
 * docs/signature-test-vectors.json and the receiver snippets of docs/verifying-signatures.md:
 * the vectors are what the signing code produces, and each snippet, extracted from the guide as
 * printed and run in its own language (node, python3, go), answers every vector as it must.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { signPayload, signPayloadWithKeys, verifySignature } from '@kairos/core';
import {
  VECTORS_PATH,
  buildSignatureTestVectors,
  renderSignatureTestVectors,
  type SignatureTestVectors,
} from '../scripts/signature-test-vectors.js';

const run = promisify(execFile);
const vectors = JSON.parse(readFileSync(VECTORS_PATH, 'utf8')) as SignatureTestVectors;
const guide = readFileSync(join(VECTORS_PATH, '../verifying-signatures.md'), 'utf8');
const expected = vectors.verifications.map((vector) => ({ name: vector.name, valid: vector.valid }));

/** The first fenced block of a language in the guide: the verifier itself. */
function snippet(language: string): string {
  const match = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(guide);
  if (!match?.[1]) throw new Error(`docs/verifying-signatures.md has no ${language} block`);
  return match[1];
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kairos-signature-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs a program that prints one JSON array of { name, valid } for the vectors file given as argument. */
async function answers(command: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  const { stdout } = await run(command, [...args, VECTORS_PATH], { cwd: dir, env, timeout: 120_000 });
  return JSON.parse(stdout) as { name: string; valid: boolean }[];
}

describe('signature test vectors', () => {
  it('are exactly what scripts/signature-test-vectors.ts builds from the signing code', () => {
    expect(readFileSync(VECTORS_PATH, 'utf8')).toBe(renderSignatureTestVectors());
    expect(vectors).toEqual(buildSignatureTestVectors());
  });

  it("hold each signature Kairos sends, and the reference verifier's answer for each request", () => {
    expect(vectors.signed.length).toBeGreaterThanOrEqual(4);
    for (const vector of vectors.signed) {
      expect(signPayload(vector.key, Number(vector.timestamp), vector.body)).toBe(vector.signature);
    }
    expect(vectors.signedDuringRotation.length).toBeGreaterThanOrEqual(1);
    for (const vector of vectors.signedDuringRotation) {
      expect(vector.signature).toMatch(/^sha256=[0-9a-f]{64} sha256=[0-9a-f]{64}$/);
      expect(vector.signature.split(' ')[0]).toBe(signPayload(vector.keys[0], Number(vector.timestamp), vector.body));
      expect(signPayloadWithKeys(vector.keys, Number(vector.timestamp), vector.body)).toBe(vector.signature);
    }
    const answers = vectors.verifications.map((vector) => ({
      name: vector.name,
      valid:
        /^[0-9]+$/.test(vector.timestamp) &&
        verifySignature(vector.key, Number(vector.timestamp), vector.body, vector.signature, vector.now),
    }));
    expect(answers).toEqual(expected);
    // Both answers are represented, so a verifier that always says yes (or no) fails.
    expect(new Set(expected.map((vector) => vector.valid))).toEqual(new Set([true, false]));
    expect(expected.filter((vector) => vector.valid).length).toBeGreaterThanOrEqual(5);
    expect(expected.filter((vector) => !vector.valid).length).toBeGreaterThanOrEqual(10);
  });
});

describe('docs/verifying-signatures.md snippets answer every vector', () => {
  it('Node.js', async () => {
    writeFileSync(
      join(dir, 'verify.mjs'),
      `${snippet('js')}
import { readFileSync } from 'node:fs';
const { verifications } = JSON.parse(readFileSync(process.argv[2], 'utf8'));
console.log(JSON.stringify(verifications.map((v) => ({
  name: v.name,
  valid: verifyKairosSignature(v.key, v.timestamp, v.signature, Buffer.from(v.body, 'utf8'), v.now),
}))));
`,
    );
    expect(await answers(process.execPath, ['verify.mjs'])).toEqual(expected);
  });

  it('Python (standard library)', async () => {
    writeFileSync(
      join(dir, 'verify.py'),
      `${snippet('python')}

if __name__ == "__main__":
    import json
    import sys

    with open(sys.argv[1], encoding="utf-8") as file:
        verifications = json.load(file)["verifications"]
    print(json.dumps([
        {"name": v["name"], "valid": verify_kairos_signature(v["key"], v["timestamp"], v["signature"], v["body"].encode("utf-8"), v["now"])}
        for v in verifications
    ]))
`,
    );
    expect(await answers('python3', ['verify.py'])).toEqual(expected);
  });

  it('Go (standard library)', async () => {
    writeFileSync(join(dir, 'verify.go'), snippet('go').replace(/^package \w+/m, 'package main'));
    writeFileSync(
      join(dir, 'main.go'),
      `package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
)

func main() {
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	var file struct {
		Verifications []struct {
			Name, Key, Timestamp, Body, Signature string
			Now                                   int64
		}
	}
	if err := json.Unmarshal(data, &file); err != nil {
		panic(err)
	}
	type answer struct {
		Name  string \`json:"name"\`
		Valid bool   \`json:"valid"\`
	}
	answers := []answer{}
	for _, v := range file.Verifications {
		valid := VerifyKairosSignature(v.Key, v.Timestamp, v.Signature, []byte(v.Body), time.Unix(v.Now, 0))
		answers = append(answers, answer{v.Name, valid})
	}
	out, _ := json.Marshal(answers)
	fmt.Println(string(out))
}
`,
    );
    // GOCACHE/GOPATH in the temporary folder: no module download, nothing left behind.
    const env = { ...process.env, GOCACHE: join(dir, 'gocache'), GOPATH: join(dir, 'gopath'), GO111MODULE: 'off' };
    expect(await answers('go', ['run', 'verify.go', 'main.go'], env)).toEqual(expected);
  }, 120_000);
});
