#!/usr/bin/env node
// Compiles the test contracts (TestUSDC.sol with OpenZeppelin from node_modules, TestUptoPermit2Proxy.sol) into
// contracts.json, offline, with solc-js. Run it after changing the contracts: node e2e/support/chains/compile-contracts.ts
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import solc from 'solc';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const files = ['TestUSDC.sol', 'TestUptoPermit2Proxy.sol'];
const input = {
  language: 'Solidity',
  sources: Object.fromEntries(files.map((f) => [f, { content: fs.readFileSync(path.join(here, f), 'utf8') }])),
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: 'cancun',
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
  },
};
const findImports = (p: string) => {
  try {
    return { contents: fs.readFileSync(path.join(root, 'node_modules', p), 'utf8') };
  } catch {
    return { error: `not found: ${p}` };
  }
};
const out = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));
const errors = (out.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
if (errors.length) {
  for (const e of errors) console.error(e.formattedMessage);
  process.exit(1);
}
const artifacts: Record<string, unknown> = {};
for (const file of files) {
  for (const [name, c] of Object.entries<any>(out.contracts[file])) {
    // Interfaces have no code.
    if (c.evm.bytecode.object) artifacts[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}`, deployedBytecode: `0x${c.evm.deployedBytecode.object}` };
  }
}
fs.writeFileSync(path.join(here, 'contracts.json'), `${JSON.stringify({ compiler: solc.version(), contracts: artifacts })}\n`);
console.log(`solc ${solc.version()}: ${Object.keys(artifacts).join(', ')} → contracts.json`);
