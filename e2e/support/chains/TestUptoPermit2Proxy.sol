// SPDX-License-Identifier: MIT
// Test-only stand-in for x402's upto Permit2 proxy, written here from the interface the published @x402/evm upto
// client and facilitator use (its ABI and witness): no package ships the proxy's bytecode. anvil.ts puts its runtime
// code at the proxy's address from @x402/evm with anvil_setCode, so it has no constructor and no storage: Permit2 is
// the canonical address, and the reentrancy lock lives in transient storage. Compiled by compile-contracts.ts.
pragma solidity ^0.8.24;

/// The part of Permit2's SignatureTransfer the proxy calls.
interface ISignatureTransfer {
    struct TokenPermissions {
        address token;
        uint256 amount;
    }

    struct PermitTransferFrom {
        TokenPermissions permitted;
        uint256 nonce;
        uint256 deadline;
    }

    struct SignatureTransferDetails {
        address to;
        uint256 requestedAmount;
    }

    function permitWitnessTransferFrom(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature
    ) external;
}

interface IERC20PermitLike {
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s) external;
}

/// The payer signs a Permit2 transfer of at most `permit.permitted.amount` to this contract as spender, with a witness
/// naming the recipient and the one facilitator allowed to settle it; that facilitator settles any amount up to it.
contract TestUptoPermit2Proxy {
    struct Witness {
        address to;
        address facilitator;
        uint256 validAfter;
    }

    struct EIP2612Permit {
        uint256 value;
        uint256 deadline;
        bytes32 r;
        bytes32 s;
        uint8 v;
    }

    ISignatureTransfer public constant PERMIT2 = ISignatureTransfer(0x000000000022D473030F116dDEE9F6B43aC78BA3);
    // What follows "PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256
    // deadline," in the EIP-712 type the client signs: the witness field, then the referenced types in order.
    string public constant WITNESS_TYPE_STRING =
        "Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,address facilitator,uint256 validAfter)";
    bytes32 public constant WITNESS_TYPEHASH = keccak256("Witness(address to,address facilitator,uint256 validAfter)");
    /// The transient slot of the reentrancy lock.
    bytes32 private constant LOCK = keccak256("TestUptoPermit2Proxy.lock");

    event Settled();
    event SettledWithPermit();

    error AmountExceedsPermitted();
    error InvalidDestination();
    error InvalidOwner();
    error InvalidPermit2Address();
    error PaymentTooEarly();
    error Permit2612AmountMismatch();
    error ReentrancyGuardReentrantCall();
    error UnauthorizedFacilitator();

    modifier nonReentrant() {
        bytes32 slot = LOCK;
        uint256 locked;
        assembly {
            locked := tload(slot)
        }
        if (locked != 0) revert ReentrancyGuardReentrantCall();
        assembly {
            tstore(slot, 1)
        }
        _;
        assembly {
            tstore(slot, 0)
        }
    }

    function settle(
        ISignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        _settle(permit, amount, owner, witness, signature);
        emit Settled();
    }

    /// The EIP-2612 permit approves Permit2 first; a failed permit is ignored (the approval may already exist).
    function settleWithPermit(
        EIP2612Permit calldata permit2612,
        ISignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        if (permit2612.value != permit.permitted.amount) revert Permit2612AmountMismatch();
        _permit(permit.permitted.token, owner, permit2612);
        _settle(permit, amount, owner, witness, signature);
        emit SettledWithPermit();
    }

    function _permit(address token, address owner, EIP2612Permit calldata p) private {
        try IERC20PermitLike(token).permit(owner, address(PERMIT2), p.value, p.deadline, p.v, p.r, p.s) {} catch {}
    }

    function _settle(
        ISignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) private {
        if (amount > permit.permitted.amount) revert AmountExceedsPermitted();
        if (msg.sender != witness.facilitator) revert UnauthorizedFacilitator();
        if (owner == address(0)) revert InvalidOwner();
        if (witness.to == address(0)) revert InvalidDestination();
        if (block.timestamp < witness.validAfter) revert PaymentTooEarly();
        bytes32 witnessHash = keccak256(abi.encode(WITNESS_TYPEHASH, witness.to, witness.facilitator, witness.validAfter));
        PERMIT2.permitWitnessTransferFrom(
            permit,
            ISignatureTransfer.SignatureTransferDetails({to: witness.to, requestedAmount: amount}),
            owner,
            witnessHash,
            WITNESS_TYPE_STRING,
            signature
        );
    }
}
