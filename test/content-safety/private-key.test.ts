import { describe, expect, it } from 'vitest';
import { findPrivateKey } from '../../src/content-safety/dlp/private-key.ts';
import { base58Check } from './corpus/helpers.ts';

const HEX = '4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318';
const WIF = '5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ';

describe('findPrivateKey', () => {
  it('covers a PEM block from its header to its footer and hashes the body', () => {
    const block = '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\nIIrYSS==\n-----END EC PRIVATE KEY-----';
    const text = `key:\n${block}\nthanks`;
    const found = findPrivateKey(text);
    expect(found && text.slice(found.start, found.end)).toBe(block);
    expect(found?.secret).toBe('MHcCAQEEIIrYSS==');
  });

  it('needs key words near 64 hex digits, and hashes them in lower case without 0x', () => {
    expect(findPrivateKey(`tx 0x${HEX} confirmed`)).toBeNull();
    expect(findPrivateKey(`private key 0x${HEX.toUpperCase()}`)?.secret).toBe(HEX);
    expect(findPrivateKey(`${HEX}\n(metamask export)`)?.secret).toBe(HEX);
    expect(findPrivateKey(`pk ${HEX}0`)).toBeNull();
  });

  it('checks the Base58Check sum and the version of a WIF', () => {
    expect(findPrivateKey(`wif ${WIF}`)?.secret).toBe(WIF);
    expect(findPrivateKey(`wif ${WIF.slice(0, -1)}K`)).toBeNull();
    const testnet = base58Check(Uint8Array.from([0xef, ...new Uint8Array(32).fill(7)]));
    const mainnet = base58Check(Uint8Array.from([0x80, ...new Uint8Array(32).fill(7)]));
    expect(findPrivateKey(testnet)).toBeNull();
    expect(findPrivateKey(mainnet)?.secret).toBe(mainnet);
  });

  it('finds extended private keys but not public ones', () => {
    const tail = 'A'.repeat(107);
    expect(findPrivateKey(`xprv${tail}`)).not.toBeNull();
    expect(findPrivateKey(`zprv${tail}`)).not.toBeNull();
    expect(findPrivateKey(`xpub${tail}`)).toBeNull();
  });
});
