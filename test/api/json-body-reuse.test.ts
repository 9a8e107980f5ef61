// readJsonBody shares one fatal UTF-8 decoder across requests (src/api/json-body.ts): a body
// that is not UTF-8 must not leave anything behind for the next one; it walks a body for
// "__proto__" keys only when the text could spell one; and the API key hash
// (Bun's one-shot SHA-256) is the same hex digest as before. Real Request objects.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readJsonBody } from '../../src/api/json-body';
import { hashApiKey } from '../../src/store/api-keys';

const post = (body: Uint8Array<ArrayBuffer> | string) =>
  new Request('http://h.test/v1/intents', { method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('request reading', () => {
  it('decodes each body on its own, before and after one that is not UTF-8', async () => {
    expect(await readJsonBody(post('{"a":"é"}'))).toEqual({ a: 'é' });
    // A lone lead byte at the end: an error, not a character held back for the next body.
    await expect(readJsonBody(post(new Uint8Array([0x7b, 0x7d, 0xc3])))).rejects.toMatchObject({ code: 'request.malformed_json' });
    expect(await readJsonBody(post(new Uint8Array([0x7b, 0x7d])))).toEqual({});
    expect(await readJsonBody(post('{"b":"\u00e9\u4e2d"}'))).toEqual({ b: 'é中' });
  });

  it('refuses a "__proto__" key however it is spelled, and looks for one only when the text could hold it', async () => {
    const refused = async (text: string, param: string) =>
      expect(readJsonBody(post(text))).rejects.toMatchObject({ code: 'request.invalid_param', param });
    await refused('{"__proto__":{}}', '__proto__');
    await refused('{"metadata":{"__proto__":"x"}}', 'metadata.__proto__');
    // Escapes decode to the same key: the text has no "__proto__" in it.
    await refused('{"\\u005f_proto__":{}}', '__proto__');
    await refused('{"metadata":{"__pr\\u006fto__":"x"}}', 'metadata.__proto__');
    // Neither: the body as sent (an escape elsewhere still walks, harmlessly).
    expect(await readJsonBody(post('{"reference":"proto","metadata":{"a":"b"}}'))).toEqual({ reference: 'proto', metadata: { a: 'b' } });
    expect(await readJsonBody(post('{"reference":"\\u00e9"}'))).toEqual({ reference: 'é' });
  });

  it('hashes API keys to the SHA-256 hex digest stored in api_keys.hash', () => {
    const key = `pk_test_${'aB3x'.repeat(8)}`;
    expect(hashApiKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
