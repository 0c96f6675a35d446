// SPDX-License-Identifier: MIT
// Test-only contracts for the offline EVM chain (anvil): a USDC look-alike with EIP-3009, a stand-in for Multicall3
// (x402's failure diagnostics call it), and an ERC-1271 smart wallet with a CREATE2 factory (ERC-6492 sign-in).
// Compiled by compile-contracts.ts into contracts.json.
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";

/// Test-only USDC look-alike: ERC-20 (6 decimals) + EIP-3009 transferWithAuthorization.
contract TestUSDC is ERC20, EIP712 {
    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    bytes32 public constant CANCEL_AUTHORIZATION_TYPEHASH = keccak256("CancelAuthorization(address authorizer,bytes32 nonce)");
    mapping(address => mapping(bytes32 => bool)) private _used;
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
    event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);

    constructor() ERC20("USD Coin", "USDC") EIP712("USD Coin", "2") {}

    // constant name/symbol so the runtime code can be copied with anvil_setCode (no storage needed)
    function name() public pure override returns (string memory) { return "USD Coin"; }
    function symbol() public pure override returns (string memory) { return "USDC"; }
    function decimals() public pure override returns (uint8) { return 6; }
    function version() external pure returns (string memory) { return "2"; }
    function mint(address to, uint256 amount) external { _mint(to, amount); }
    function DOMAIN_SEPARATOR() external view returns (bytes32) { return _domainSeparatorV4(); }
    function authorizationState(address a, bytes32 n) external view returns (bool) { return _used[a][n]; }

    function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter,
        uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) external {
        _twa(from, to, value, validAfter, validBefore, nonce, abi.encodePacked(r, s, v));
    }

    function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter,
        uint256 validBefore, bytes32 nonce, bytes memory signature) external {
        _twa(from, to, value, validAfter, validBefore, nonce, signature);
    }

    /// EIP-3009 cancelAuthorization (as USDC's FiatTokenV2): the authorizer's signature retires an unused nonce.
    function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) external {
        require(!_used[authorizer][nonce], "FiatTokenV2: authorization is used or canceled");
        bytes32 digest = _hashTypedDataV4(keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce)));
        require(SignatureChecker.isValidSignatureNow(authorizer, digest, abi.encodePacked(r, s, v)), "FiatTokenV2: invalid signature");
        _used[authorizer][nonce] = true;
        emit AuthorizationCanceled(authorizer, nonce);
    }

    function _twa(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore,
        bytes32 nonce, bytes memory signature) internal {
        require(block.timestamp > validAfter, "FiatTokenV2: authorization is not yet valid");
        require(block.timestamp < validBefore, "FiatTokenV2: authorization is expired");
        require(!_used[from][nonce], "FiatTokenV2: authorization is used or canceled");
        bytes32 digest = _hashTypedDataV4(keccak256(abi.encode(
            TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce)));
        // SignatureChecker: ECDSA (rejects high-s / malleable sigs) or ERC-1271 for contract wallets
        require(SignatureChecker.isValidSignatureNow(from, digest, signature), "FiatTokenV2: invalid signature");
        _used[from][nonce] = true;
        emit AuthorizationUsed(from, nonce);
        _transfer(from, to, value);
    }
}

/// Minimal stand-in for Multicall3.tryAggregate (x402's failure diagnostics call it at 0xcA11...CA11).
contract MiniMulticall3 {
    struct Call { address target; bytes callData; }
    struct Result { bool success; bytes returnData; }
    function tryAggregate(bool requireSuccess, Call[] calldata calls) external returns (Result[] memory out) {
        out = new Result[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool ok, bytes memory ret) = calls[i].target.call(calls[i].callData);
            if (requireSuccess) require(ok, "call failed");
            out[i] = Result(ok, ret);
        }
    }
}

/// Test-only smart wallet: ERC-1271 valid iff the owner signed the hash.
contract TestWallet {
    address public immutable owner;
    constructor(address o) { owner = o; }
    function isValidSignature(bytes32 hash, bytes calldata sig) external view returns (bytes4) {
        (bytes32 r, bytes32 s) = abi.decode(sig[:64], (bytes32, bytes32));
        uint8 v = uint8(sig[64]);
        return ecrecover(hash, v, r, s) == owner ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }
}

/// CREATE2 factory so a wallet address is known before deployment (ERC-6492 counterfactual case).
contract TestWalletFactory {
    function deploy(address o, bytes32 salt) external returns (address w) { w = address(new TestWallet{salt: salt}(o)); }
    function predict(address o, bytes32 salt) external view returns (address) {
        bytes32 h = keccak256(abi.encodePacked(bytes1(0xff), address(this), salt,
            keccak256(abi.encodePacked(type(TestWallet).creationCode, abi.encode(o)))));
        return address(uint160(uint256(h)));
    }
}
