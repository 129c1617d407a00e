// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title The part of Multicall3 that x402 facilitators call, for local anvil chains.
/// @notice Every Base chain has Multicall3 at 0xcA11bde05977b3631167028862bE2a173976CA11; anvil has none. The x402
/// EVM facilitator reads a failed authorization's balance, name, version and nonce state through `tryAggregate` to
/// name the failure; without this contract a local chain reports every such failure as a generic simulation error.
/// Same signature and semantics as the original's `tryAggregate`.
contract Multicall3 {
    struct Call {
        address target;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    function tryAggregate(bool requireSuccess, Call[] calldata calls) external payable returns (Result[] memory returnData) {
        returnData = new Result[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool success, bytes memory ret) = calls[i].target.call(calls[i].callData);
            if (requireSuccess) require(success, "Multicall3: call failed");
            returnData[i] = Result(success, ret);
        }
    }
}
