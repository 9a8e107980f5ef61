// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A USDC-like test token: 6 decimals, owner mint, and a blocklist (USDC has one) so a test can
/// make a signed, well-formed transfer revert at execution.
contract TestToken {
    string public name = "Test USD Coin";
    string public symbol = "USDC";
    uint8 public constant decimals = 6;
    uint256 public totalSupply;
    address public owner;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    mapping(address => bool) public blocked;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor() { owner = msg.sender; }

    function mint(address to, uint256 amount) external {
        require(msg.sender == owner, "not owner");
        totalSupply += amount;
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function setBlocked(address who, bool value) external {
        require(msg.sender == owner, "not owner");
        blocked[who] = value;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _move(msg.sender, to, amount);
        return true;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 a = allowance[from][msg.sender];
        require(a >= amount, "allowance");
        allowance[from][msg.sender] = a - amount;
        _move(from, to, amount);
        return true;
    }

    function _move(address from, address to, uint256 amount) internal {
        require(!blocked[from] && !blocked[to], "blocked");
        require(balanceOf[from] >= amount, "balance");
        balanceOf[from] -= amount;
        balanceOf[to] += amount;
        emit Transfer(from, to, amount);
    }
}

/// Stands in for the OP Stack GasPriceOracle predeploy (plain anvil has none): a fee that grows
/// with the serialized transaction's length, so a test can see the L1 part in the estimate.
contract FakeGasPriceOracle {
    function getL1Fee(bytes memory data) external pure returns (uint256) {
        return data.length * 1_000_000_000;
    }
}
