// The payment page's script (inlined by page.ts under its CSP nonce; a string so the compiled
// binary carries it). Plain ES2020 for any browser: no backticks or template literals inside.
export const PAY_CLIENT_JS = String.raw`// The payment page's script: countdown, live state, end screens, and wallet buttons.
// EVM wallets through EIP-6963 (fallback window.ethereum); Solana wallets through the Wallet
// Standard. It talks only to this origin (/pay/<token>/…); the wallet talks to its own chain.
(function () {
  'use strict';
  var v = JSON.parse(document.getElementById('pay-data').textContent);
  var base = location.pathname.replace(/\/+$/, '');
  var $ = function (id) { return document.getElementById(id); };
  var busy = false;

  function say(text) { $('message').textContent = text || ''; }
  // A wallet that sent the transaction itself: the nodes may not know it for a moment
  // (transaction.not_found); keep telling PayForge for up to a minute (detection finds it anyway).
  function submitId(sig, tries) {
    return post('/submit', { txSignature: sig }).catch(function (e) {
      if (e.code !== 'transaction.not_found' || tries >= 40) throw e;
      say('Waiting for the network to see your transaction…');
      return new Promise(function (r) { setTimeout(r, 1500); }).then(function () { return submitId(sig, tries + 1); });
    });
  }
  function post(path, body) {
    return fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      .then(function (r) { return r.json().then(function (j) { if (!r.ok) { var e = new Error((j.error && j.error.message) || ('HTTP ' + r.status)); e.code = j.error && j.error.code; e.param = j.error && j.error.param; e.details = (j.error && j.error.details) || {}; throw e; } return j; }); });
  }

  // ---- countdown and live state ----------------------------------------------------------
  function countdown() {
    var left = Math.max(0, Date.parse(v.status.expiresAt) - Date.now());
    var s = Math.floor(left / 1000), m = Math.floor(s / 60), h = Math.floor(m / 60);
    $('countdown').textContent = h > 0 ? h + 'h ' + (m % 60) + 'm' : m + ':' + String(s % 60).padStart(2, '0');
  }
  var END = {
    confirmed: ['Paid', 'Thank you: the payment is on chain. You can close this page.'],
    finalized: ['Paid', 'Thank you: the payment is final. You can close this page.'],
    expired: ['Expired', 'This payment request expired before it was paid. Ask the merchant for a new link.'],
    cancelled: ['Cancelled', 'The merchant cancelled this payment request.'],
    failed: ['Payment failed', 'The transaction failed on chain; no money moved.']
  };
  // The state in the payer's words (never the machine's state name).
  var LABEL = {
    created: 'Waiting for payment…',
    pending: 'Payment sent: waiting for the network to confirm it…',
    dropped: 'The last transaction did not land. Try again.',
    confirmed: 'Payment received: confirmed on chain',
    finalized: 'Payment received: final on chain',
    expired: 'No payment: the request expired',
    cancelled: 'No payment: the merchant cancelled the request',
    failed: 'Payment failed: no money moved'
  };
  // Payable again only while created or dropped (the last transaction cannot land any more): with a
  // transaction on its way, or once paid or closed, a second payment would be a payment twice.
  function payable(st) { return st.state === 'created' || st.state === 'dropped'; }
  function show(st) {
    v.status = st;
    $('state').textContent = (LABEL[st.state] || st.state) + (st.txSignature ? ' (transaction ' + st.txSignature.slice(0, 10) + '…)' : '');
    $('state').setAttribute('data-state', st.state);
    var end = END[st.state];
    if (st.latePayment) end = ['Payment received late', 'Your payment arrived after this request closed. The merchant can see it and refund it.'];
    // The summary above stays on every screen: once paid it is the receipt (to whom, how much).
    $('merchant').textContent = (end && !st.latePayment && (st.state === 'confirmed' || st.state === 'finalized') ? 'Paid to ' : 'Pay ') + v.merchant;
    $('pay').hidden = !!end || !payable(st);
    $('end').hidden = !end;
    if (end) {
      $('end').setAttribute('data-end', st.latePayment ? 'late' : st.state);
      $('end-title').textContent = end[0];
      $('end-text').textContent = end[1];
    } else if (st.state === 'dropped' || st.retryRequired) {
      // The intent is payable again: the wallet buttons are the "try again".
      say('The last transaction did not land: no money moved. Try again.');
    }
  }
  // Polling goes on after an end screen: a confirmed payment becomes final, and money can still
  // arrive for an expired, cancelled or failed request (the late-payment screen). Nothing follows
  // finalized or a noticed late payment.
  function settled(st) { return st.state === 'finalized' || st.latePayment; }
  function poll() {
    fetch(base + '/status', { cache: 'no-store' }).then(function (r) { return r.ok ? r.json() : null; })
      .then(function (st) { if (st) show(st); }, function () {})
      .then(function () { if (!settled(v.status)) setTimeout(poll, 1500); });
  }

  // ---- EVM wallets: EIP-6963 announcements, else window.ethereum ---------------------------
  var evm = [];
  function addEvm(info, provider) {
    if (evm.some(function (w) { return w.provider === provider; })) return;
    evm.push({ info: info, provider: provider });
    button('Pay with ' + info.name, function () { return payEvm(provider); });
  }
  function hex(n) { return '0x' + BigInt(n).toString(16); }
  function word(h) { return h.replace(/^0x/, '').toLowerCase().padStart(64, '0'); }
  // The state as it is now, and whether this wallet may pay (the page is never told which wallet
  // was attached): asked before the wallet is, since the last poll can be 1.5 s old and a payment
  // sent meanwhile (another tab, a phone that scanned the QR) would be paid a second time.
  function fresh(from) {
    return fetch(base + '/status?wallet=' + encodeURIComponent(from), { cache: 'no-store' }).then(function (r) {
      if (!r.ok) throw new Error('Could not reach the payment service; nothing was sent. Try again.');
      return r.json();
    }).then(function (st) {
      show(st);
      if (!payable(st)) throw new Error('This payment is already on its way or closed: nothing was sent from your wallet.');
      if (!st.walletMayPay) throw new Error('This payment was started from another wallet: pay from that wallet.');
    });
  }
  function payEvm(p) {
    var from;
    return p.request({ method: 'eth_requestAccounts' }).then(function (accounts) {
      from = accounts[0];
      return fresh(from);
    }).then(function () {
      return p.request({ method: 'eth_chainId' });
    }).then(function (id) {
      if (BigInt(id) === BigInt(v.evmChainId)) return null;
      say('Switching your wallet to ' + v.network + '…');
      return p.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: hex(v.evmChainId) }] }).catch(function (e) {
        throw new Error(e && e.code === 4902 ? 'Your wallet does not know ' + v.network + ': add it, then try again.' : 'Please switch your wallet to ' + v.network + '.');
      });
    }).then(function () {
      return p.request({ method: 'eth_call', params: [{ to: v.tokenAddress, data: '0x70a08231' + word(from) }, 'latest'] });
    }).then(function (bal) {
      if (BigInt(bal) < BigInt(v.amountBaseUnits)) throw new Error('Too little ' + v.token + ' in ' + from + ' to pay ' + v.amount + ' ' + v.token + '.');
      // Again right before the wallet sends: the network switch above waited on the payer.
      return fresh(from);
    }).then(function () {
      say('Confirm the payment in your wallet…');
      var data = '0xa9059cbb' + word(v.requestor) + word(hex(v.amountBaseUnits));
      return p.request({ method: 'eth_sendTransaction', params: [{ from: from, to: v.tokenAddress, data: data, value: '0x0' }] });
    }).then(function (hash) {
      say('');
      return submitId(hash, 0);
    });
  }
  window.addEventListener('eip6963:announceProvider', function (e) { addEvm(e.detail.info, e.detail.provider); });

  // ---- Solana wallets: the Wallet Standard (app side of its registration protocol) ---------
  var B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
  function b58(bytes) {
    var digits = [0];
    for (var i = 0; i < bytes.length; i++) {
      var carry = bytes[i];
      for (var j = 0; j < digits.length; j++) { carry += digits[j] << 8; digits[j] = carry % 58; carry = (carry / 58) | 0; }
      while (carry) { digits.push(carry % 58); carry = (carry / 58) | 0; }
    }
    var out = '';
    for (var k = 0; k < bytes.length && bytes[k] === 0; k++) out += '1';
    for (var q = digits.length - 1; q >= 0; q--) out += B58[digits[q]];
    return out;
  }
  function fromB64(s) { var bin = atob(s), a = new Uint8Array(bin.length); for (var i = 0; i < bin.length; i++) a[i] = bin.charCodeAt(i); return a; }
  function toB64(a) { var s = ''; for (var i = 0; i < a.length; i++) s += String.fromCharCode(a[i]); return btoa(s); }
  // A wire transaction around the built v0 message: compact-u16 signature count, empty slots, message.
  function wire(message) {
    var n = message[0] & 0x80 ? message[1] : message[0];
    var out = new Uint8Array(1 + 64 * n + message.length);
    out[0] = n;
    out.set(message, 1 + 64 * n);
    return out;
  }
  // Wallet Standard names clusters solana:mainnet / devnet / testnet; CAIP-2 ids carry the genesis hash.
  var CLUSTERS = { '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp': 'solana:mainnet', EtWTRABZaYq6iMfeYKouRu166VU2xqa1: 'solana:devnet', '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z': 'solana:testnet' };
  var solChain = CLUSTERS[v.chain.slice(7)] || 'solana:devnet';
  function addSolana(w) {
    var f = w.features || {};
    if (!f['standard:connect'] || !(f['solana:signTransaction'] || f['solana:signAndSendTransaction'])) return;
    button('Pay with ' + w.name, function () { return paySolana(w); });
  }
  function paySolana(w) {
    var f = w.features, account;
    return f['standard:connect'].connect().then(function (r) {
      account = (r.accounts || w.accounts)[0];
      if (!account) throw new Error('The wallet shared no account.');
      // Checked before anything is built or signed: a wallet on another cluster would sign a
      // transaction its own network cannot land.
      var chains = account.chains || w.chains || [];
      if (chains.length > 0 && chains.indexOf(solChain) < 0) {
        throw new Error('Your wallet is on ' + chains.join(', ') + ': switch it to ' + v.network + ', then try again.');
      }
      return post('/build', { fulfiller: account.address });
    }).then(function (built) {
      var tx = wire(fromB64(built.transaction.blob));
      say('Confirm the payment in your wallet…');
      if (f['solana:signAndSendTransaction']) {
        return f['solana:signAndSendTransaction'].signAndSendTransaction({ account: account, transaction: tx, chain: solChain })
          .then(function (out) { return submitId(b58(out[0].signature), 0); });
      }
      return f['solana:signTransaction'].signTransaction({ account: account, transaction: tx, chain: solChain })
        .then(function (out) { return post('/submit', { signedTransaction: toB64(out[0].signedTransaction) }); });
    });
  }
  var standardApi = { register: function () { for (var i = 0; i < arguments.length; i++) addSolana(arguments[i]); return function () {}; } };
  window.addEventListener('wallet-standard:register-wallet', function (e) { e.detail(standardApi); });

  // ---- buttons and their errors ------------------------------------------------------------
  // What the payer reads when a wallet or the network refuses: the node's words (a Solana
  // preflight seen by submit, or by a wallet that sends itself) turned into what to do next.
  function explain(e) {
    var m = String((e && e.message) || e);
    if (e && (e.code === 4001 || /reject|denied|declined|cancell?ed by (the )?user/i.test(m))) return 'You rejected the request in your wallet; nothing was paid.';
    // SPL Token's InsufficientFunds is custom error 1; a missing source token account cannot be debited.
    if (/custom program error: 0x1\b|"Custom":1\b|InsufficientFunds\b(?!ForFee)/.test(m)) return 'Too little ' + v.token + ' in your wallet to pay ' + v.amount + ' ' + v.token + '; nothing was paid.';
    if (/insufficient funds for fee|InsufficientFundsForFee|no record of a prior credit|insufficient lamports/i.test(m)) return 'Too little SOL in your wallet to pay the network fee; nothing was paid.';
    return m;
  }
  function button(text, run) {
    var b = document.createElement('button');
    b.textContent = text;
    b.addEventListener('click', function () {
      if (busy || !payable(v.status)) return;
      busy = true; b.disabled = true; say('');
      run().then(function (r) { if (r && r.status) show(r.status); }, function (e) { say(explain(e)); })
        .then(function () { busy = false; b.disabled = false; });
    });
    $('wallets').appendChild(b);
  }

  countdown();
  setInterval(countdown, 1000);
  show(v.status);
  if (!settled(v.status)) setTimeout(poll, 1500);
  if (v.family === 'evm') {
    window.dispatchEvent(new Event('eip6963:requestProvider'));
    setTimeout(function () { if (evm.length === 0 && window.ethereum) addEvm({ name: 'browser wallet' }, window.ethereum); }, 300);
  } else {
    window.dispatchEvent(new CustomEvent('wallet-standard:app-ready', { detail: standardApi }));
  }
})();
`;
