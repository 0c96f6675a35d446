// The contracts of x402's `upto` scheme on the local chain: Uniswap's Permit2 at its canonical address, and our
// stand-in for x402's upto proxy (TestUptoPermit2Proxy.sol) at the address @x402/evm signs for.
//
// Permit2 is the real contract (MIT): its creation code ships in the devDependency @uniswap/uniswapx-sdk (a typechain
// factory). It is deployed the way it was on every public chain, through the deterministic CREATE2 deployer anvil
// starts with and Permit2's published salt, so it lands at 0x000000000022D473030F116dDEE9F6B43aC78BA3 only if the
// bytes are exactly the canonical ones (and its EIP-712 domain names that address, as the client signs it).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { x402UptoPermit2ProxyAddress } from '@x402/evm';
import { concat, getContractAddress, type Hex } from 'viem';

export const PERMIT2: Hex = '0x000000000022D473030F116dDEE9F6B43aC78BA3';
export const UPTO_PROXY = x402UptoPermit2ProxyAddress as Hex;
/** The CREATE2 deployer (Arachnid's) that anvil predeploys, as public chains have it. */
const CREATE2_DEPLOYER: Hex = '0x4e59b44847b379578588920cA78FbF26c0B4956C';
const PERMIT2_SALT: Hex = '0x0000000000000000000000000000000000000000d3af2663da51c10215000000';

/** Permit2's creation code, read from the typechain factory the package ships (loading it would load ethers v5). */
function permit2InitCode(): Hex {
  const require = createRequire(import.meta.url);
  const dir = path.dirname(require.resolve('@uniswap/uniswapx-sdk'));
  const source = fs.readFileSync(path.join(dir, 'contracts/factories/Permit2__factory.js'), 'utf8');
  const code = /const _bytecode = "(0x[0-9a-f]+)"/.exec(source)?.[1] as Hex | undefined;
  if (!code) throw new Error('Permit2 creation code not found in @uniswap/uniswapx-sdk');
  if (getContractAddress({ opcode: 'CREATE2', from: CREATE2_DEPLOYER, salt: PERMIT2_SALT, bytecode: code }) !== PERMIT2)
    throw new Error('the Permit2 creation code in @uniswap/uniswapx-sdk is not the canonical one');
  return code;
}

/** The deployment transaction: the deployer takes salt ++ creation code as calldata. */
export const permit2Deployment = (): { to: Hex; data: Hex } => ({ to: CREATE2_DEPLOYER, data: concat([PERMIT2_SALT, permit2InitCode()]) });
