-- SPDX-License-Identifier: GPL-2.0
--
-- A Wireshark dissector for mrc, the multipath reliable transport over
-- UDP port 4791, written from Documentation/wire-format.rst.
--
--   tshark -X lua_script:tools/wireshark/mrc.lua \
--          -o udp.try_heuristic_first:TRUE -r capture.pcap -Y mrc
--   wireshark -X lua_script:tools/wireshark/mrc.lua \
--          -o udp.try_heuristic_first:TRUE capture.pcap
--
-- (udp.try_heuristic_first: see the end of this file.)
-- or copy the file into ~/.local/lib/wireshark/plugins/.  It takes UDP
-- port 4791 from Wireshark's InfiniBand (RoCEv2) dissector, which would
-- read mrc's opcodes as unknown: "Decode As..." switches back.  Every
-- field is under "mrc."; see Documentation/testing.rst for the list.
--
-- Incarnation tags: mrc.iteth.tag (the sender's) and mrc.iteth.echo (the
-- receiver's, as the sender knows it) wherever a packet carries them, so
-- that one filter finds all of an end's packets.  Every packet but a
-- probe and its response has them in an ITETH (BTH flag 0x08,
-- mrc.flags.tagged).  A probe and its response keep MRC 1.0's sizes and
-- have no ITETH: a probe's sender tag alone is in PETH bytes 0-3 (no
-- mrc.iteth.echo), and a response's tags are in SETH bytes 20-27, the
-- bitmap's place (shown as tags, not as a bitmap).

local mrc = Proto("mrc", "Multipath Reliable Connection (mrc)")

local OP = {
	[0xC6] = "WRITE_FIRST", [0xC7] = "WRITE_MIDDLE",
	[0xC8] = "WRITE_LAST", [0xC9] = "WRITE_LAST_IMM",
	[0xCA] = "WRITE_ONLY", [0xCB] = "WRITE_ONLY_IMM",
	[0xD1] = "ACK", [0xDC] = "SACK", [0xDD] = "NACK", [0xDE] = "PROBE",
}

local NACK_REASON = {
	[0x01] = "trimmed", [0x02] = "trimmed on the last hop",
	[0x06] = "no bitmap", [0x07] = "no packet buffer",
	[0x0A] = "no resource", [0x0B] = "PSN out of window",
	[0x19] = "unexpected", [0x1A] = "tag challenge",
}

local MARK = {
	[0] = "none", [1] = "skip once", [2] = "always skip", [3] = "reserved",
}

local CC_TYPE = { [1] = "NSCC" }

local f = mrc.fields
local function add(name, field)
	f[name] = field
	return field
end

-- BTH
local F_opcode = add("opcode", ProtoField.uint8("mrc.opcode", "Opcode",
	base.HEX, OP))
local F_b1 = add("b1", ProtoField.uint8("mrc.b1", "SE, M, pad, version",
	base.HEX))
local F_se = add("se", ProtoField.bool("mrc.se", "Solicited event", 8,
	nil, 0x80))
local F_mig = add("mig", ProtoField.bool("mrc.mig", "Migration request",
	8, nil, 0x40))
local F_pad = add("pad", ProtoField.uint8("mrc.pad", "Pad count",
	base.DEC, nil, 0x30))
local F_tver = add("tver", ProtoField.uint8("mrc.tver", "Transport version",
	base.DEC, nil, 0x0f))
local F_pkey = add("pkey", ProtoField.uint16("mrc.pkey", "Partition key",
	base.HEX))
local F_dport = add("dport", ProtoField.uint24("mrc.dport",
	"Destination QP (destination mrc port)", base.DEC))
local F_flags = add("flags", ProtoField.uint8("mrc.flags", "Flags",
	base.HEX))
local F_ackreq = add("ackreq", ProtoField.bool("mrc.flags.ackreq",
	"Ack request", 8, nil, 0x80))
local F_start = add("start", ProtoField.bool("mrc.flags.start",
	"Start of an incarnation", 8, nil, 0x40))
local F_rtx = add("rtx", ProtoField.bool("mrc.flags.rtx",
	"Retransmission", 8, nil, 0x20))
local F_tseth = add("tseth", ProtoField.bool("mrc.flags.tseth",
	"TSETH present", 8, nil, 0x10))
local F_tagged = add("tagged", ProtoField.bool("mrc.flags.tagged",
	"Tagged (ITETH present)", 8, nil, 0x08))
local F_psn = add("psn", ProtoField.uint24("mrc.psn", "PSN", base.DEC))

-- data: METH, TSETH, RETH, payload
local F_reqmsn = add("req_msn", ProtoField.uint16("mrc.req_msn",
	"Request message sequence", base.DEC))
local F_msn = add("msn", ProtoField.uint16("mrc.msn", "MSN", base.DEC))
local F_ts = add("ts", ProtoField.uint16("mrc.ts", "Transmit timestamp",
	base.DEC))
local F_tsflags = add("ts_flags", ProtoField.uint16("mrc.ts_flags",
	"TSETH flags", base.HEX))
local F_offset = add("offset", ProtoField.uint64("mrc.offset",
	"Offset in the message", base.DEC))
local F_sport = add("sport", ProtoField.uint16("mrc.sport",
	"Source mrc port", base.DEC))
local F_epoch = add("epoch", ProtoField.uint16("mrc.epoch", "Epoch",
	base.HEX))
local F_msglen = add("msg_len", ProtoField.uint32("mrc.msg_len",
	"Message length", base.DEC))
local F_imm = add("imm", ProtoField.uint32("mrc.imm", "Immediate data",
	base.HEX))
local F_paylen = add("payload_len", ProtoField.uint32("mrc.payload_len",
	"Payload length", base.DEC))
local F_payload = add("payload", ProtoField.bytes("mrc.payload",
	"Payload"))

-- SACK (SETH, CC state), probe response, NACK (NETH), probe (PETH)
local F_nexthdr = add("next_hdr", ProtoField.uint8("mrc.next_hdr",
	"Next header", base.HEX))
local F_seth1 = add("seth_flags", ProtoField.uint8("mrc.seth_flags",
	"SETH flags", base.HEX))
local F_mark = add("mark", ProtoField.uint8("mrc.mark", "Mark", base.DEC,
	MARK, 0x60))
local F_presp = add("probe_resp", ProtoField.bool("mrc.probe_resp",
	"Probe response", 8, nil, 0x02))
local F_ackoff = add("acked_off", ProtoField.int16("mrc.acked_off",
	"Acknowledged-PSN offset", base.DEC))
local F_ackpsn = add("acked_psn", ProtoField.uint24("mrc.acked_psn",
	"PSN that drew it", base.DEC))
local F_entropy = add("entropy", ProtoField.uint32("mrc.entropy",
	"Reflected entropy value", base.DEC))
local F_cum = add("cum_psn", ProtoField.uint24("mrc.cum_psn",
	"Cumulative PSN", base.DEC))
local F_cctype = add("cc_type", ProtoField.uint8("mrc.cc_type",
	"Congestion control type", base.DEC, CC_TYPE, 0xf0))
local F_ccflags = add("cc_flags", ProtoField.uint8("mrc.cc_flags",
	"Congestion control flags", base.HEX, nil, 0x0f))
local F_ecn = add("cc_ecn", ProtoField.bool("mrc.cc_flags.ecn",
	"ECN (drawing packet marked CE)", 8, nil, 0x01))
local F_dup = add("cc_dup", ProtoField.bool("mrc.cc_flags.dup",
	"Duplicate", 8, nil, 0x02))
local F_delayed = add("cc_delayed", ProtoField.bool("mrc.cc_flags.delayed",
	"Sent by the delayed-ack timer", 8, nil, 0x04))
local F_range = add("max_range", ProtoField.uint8("mrc.max_range",
	"Maximum PSN range (units of 128)", base.DEC))
local F_sackoff = add("sack_off", ProtoField.int16("mrc.sack_off",
	"SACK offset", base.DEC))
local F_bitmap = add("bitmap", ProtoField.uint64("mrc.bitmap",
	"SACK bitmap", base.HEX))
local F_sacked = add("sacked", ProtoField.string("mrc.sacked",
	"PSNs the bitmap reports"))
local F_tsecho = add("ts_echo", ProtoField.uint16("mrc.ts_echo",
	"Echoed timestamp", base.DEC))
local F_ooo = add("ooo", ProtoField.uint16("mrc.ooo",
	"Out-of-order count", base.DEC, nil, 0x7fff))
local F_restore = add("restore", ProtoField.bool("mrc.restore",
	"Restore window", 8, nil, 0x80))
local F_penalty = add("penalty", ProtoField.uint8("mrc.penalty",
	"Receiver window penalty", base.DEC, nil, 0x7f))
local F_rcvd = add("rcvd_256", ProtoField.uint24("mrc.rcvd_256",
	"Bytes received (units of 256)", base.DEC))
local F_probeno = add("probe_num", ProtoField.uint16("mrc.probe_num",
	"Probe number", base.DEC))
local F_svc = add("service_us", ProtoField.uint16("mrc.service_us",
	"Service time (us)", base.DEC))
local F_nackpsn = add("nack_psn", ProtoField.uint24("mrc.nack_psn",
	"NACK PSN", base.DEC))
local F_reason = add("reason", ProtoField.uint8("mrc.reason",
	"NACK reason", base.HEX, NACK_REASON))
local F_vendor = add("vendor", ProtoField.uint8("mrc.vendor",
	"Vendor information", base.HEX))
local F_pdport = add("probed_port", ProtoField.uint16("mrc.probed_port",
	"Destination connection id (probed mrc port)", base.DEC))
local F_pts = add("probe_ts", ProtoField.uint16("mrc.probe_ts",
	"Probe timestamp", base.DEC))
local F_pflags = add("probe_flags", ProtoField.uint16("mrc.probe_flags",
	"Flags and format", base.HEX))
local F_reserved = add("reserved", ProtoField.bytes("mrc.reserved",
	"Reserved"))

-- Incarnation tags (mrc's own): the ITETH (BTH flag 0x08), a probe's
-- PETH bytes 0-3, a probe response's SETH bytes 20-27.
local F_tag = add("iteth_tag", ProtoField.uint32("mrc.iteth.tag",
	"Sender tag", base.HEX))
local F_echo = add("iteth_echo", ProtoField.uint32("mrc.iteth.echo",
	"Echoed tag", base.HEX))

local E_short = ProtoExpert.new("mrc.short", "Shorter than its headers",
	expert.group.MALFORMED, expert.severity.ERROR)
local E_version = ProtoExpert.new("mrc.bad_version",
	"Transport version not 0", expert.group.MALFORMED,
	expert.severity.ERROR)
local E_opcode = ProtoExpert.new("mrc.bad_opcode",
	"Opcode mrc does not know", expert.group.MALFORMED,
	expert.severity.ERROR)
local E_trailing = ProtoExpert.new("mrc.trailing",
	"Bytes after the headers of a control packet",
	expert.group.MALFORMED, expert.severity.WARN)
-- No tags: no ITETH (BTH flag 0x08 clear); a probe's tag 0 (PETH bytes
-- 0-3, MRC 1.0's zeros); a probe response echoing 0 (an MRC 1.0 one).
local E_untagged = ProtoExpert.new("mrc.untagged",
	"No ITETH (BTH flag 0x08 clear): no mrc queue pair takes it",
	expert.group.PROTOCOL, expert.severity.NOTE)
mrc.experts = { E_short, E_version, E_opcode, E_trailing, E_untagged }

local BTH_LEN, METH_LEN, TSETH_LEN, RETH_LEN = 12, 4, 4, 16
local ITETH_LEN = 8
local TAGGED = 0x08
-- After the BTH, without the ITETH.
local CTL_LEN = { [0xD1] = 4, [0xDC] = 36, [0xDD] = 20, [0xDE] = 16 }

local function is_data(op)
	return op >= 0xC6 and op <= 0xCB
end

local function psn_add(a, b)
	return (a + b) % 0x1000000
end

local function bth(tree, tvb)
	local t = tree:add(mrc, tvb(0, BTH_LEN), "Base Transport Header")
	t:add(F_opcode, tvb(0, 1))
	local b1 = t:add(F_b1, tvb(1, 1))
	b1:add(F_se, tvb(1, 1))
	b1:add(F_mig, tvb(1, 1))
	b1:add(F_pad, tvb(1, 1))
	b1:add(F_tver, tvb(1, 1))
	t:add(F_pkey, tvb(2, 2))
	t:add(F_reserved, tvb(4, 1))
	t:add(F_dport, tvb(5, 3))
	local fl = t:add(F_flags, tvb(8, 1))
	fl:add(F_ackreq, tvb(8, 1))
	fl:add(F_start, tvb(8, 1))
	fl:add(F_rtx, tvb(8, 1))
	fl:add(F_tseth, tvb(8, 1))
	fl:add(F_tagged, tvb(8, 1))
	t:add(F_psn, tvb(9, 3))
	return t
end

local function iteth_len(tvb)
	return bit.band(tvb(8, 1):uint(), TAGGED) ~= 0 and ITETH_LEN or 0
end

-- The tags at @off, laid out as an ITETH's: the sender's tag, then the
-- receiver's, echoed.  @title: the subtree's.
local function tags_at(tree, tvb, off, title)
	local t = tree:add(mrc, tvb(off, ITETH_LEN), title)
	t:add(F_tag, tvb(off, 4))
	t:add(F_echo, tvb(off + 4, 4))
	return string.format(" tag 0x%08x echo 0x%08x", tvb(off, 4):uint(),
		tvb(off + 4, 4):uint())
end

-- The ITETH at @off.
local function iteth(tree, tvb, off)
	return tags_at(tree, tvb, off, "ITETH (incarnation tags)")
end

local function data(tree, tvb, pinfo, op)
	local off = BTH_LEN
	local flags = tvb(8, 1):uint()
	local imm = (op == 0xC9 or op == 0xCB) and 4 or 0
	local tseth = bit.band(flags, 0x10) ~= 0 and TSETH_LEN or 0
	local it = iteth_len(tvb)
	local hlen = BTH_LEN + METH_LEN + tseth + RETH_LEN + it + imm
	local tags = ""

	if tvb:len() < hlen then
		return hlen, 0, ""
	end
	local m = tree:add(mrc, tvb(off, METH_LEN), "METH")
	m:add(F_reqmsn, tvb(off, 2))
	m:add(F_msn, tvb(off + 2, 2))
	off = off + METH_LEN
	if tseth > 0 then
		local t = tree:add(mrc, tvb(off, TSETH_LEN), "TSETH")
		t:add(F_ts, tvb(off, 2))
		t:add(F_tsflags, tvb(off + 2, 2))
		off = off + TSETH_LEN
	end
	local r = tree:add(mrc, tvb(off, RETH_LEN), "RETH")
	r:add(F_offset, tvb(off, 8))
	r:add(F_sport, tvb(off + 8, 2))
	r:add(F_epoch, tvb(off + 10, 2))
	r:add(F_msglen, tvb(off + 12, 4))
	local reth = off
	off = off + RETH_LEN
	-- The ITETH comes before any immediate data.
	if it > 0 then
		tags = iteth(tree, tvb, off)
		off = off + ITETH_LEN
	end
	if imm > 0 then
		tree:add(F_imm, tvb(off, 4))
		off = off + 4
	end
	local plen = tvb:len() - off
	tree:add(F_paylen, plen):set_generated()
	if plen > 0 then
		tree:add(F_payload, tvb(off, plen))
	end
	return hlen, tvb(reth + 8, 2):uint(),
		string.format(" msn %d off %s len %d%s",
		tvb(BTH_LEN + 2, 2):uint(), tostring(tvb(reth, 8):uint64()),
		plen, tags)
end

local function sacked_list(base, bmp)
	local out = {}
	-- bit i of the big-endian 64-bit value: PSN base + i
	for i = 0, 63 do
		local byte = 7 - math.floor(i / 8)
		if bit.band(bmp:get_index(byte), bit.lshift(1, i % 8)) ~= 0 then
			out[#out + 1] = tostring(psn_add(base, i))
		end
	end
	return table.concat(out, ",")
end

local function sack(tree, tvb, pinfo)
	local s = tree:add(mrc, tvb(12, 28), "SETH")
	local b1 = tvb(13, 1):uint()
	local presp = bit.band(b1, 0x02) ~= 0
	local cum = tvb(25, 3):uint()

	s:add(F_nexthdr, tvb(12, 1))
	local fl = s:add(F_seth1, tvb(13, 1))
	fl:add(F_mark, tvb(13, 1))
	fl:add(F_presp, tvb(13, 1))
	if presp then
		s:add(F_probeno, tvb(14, 2))
	else
		s:add(F_ackoff, tvb(14, 2))
		s:add(F_ackpsn, psn_add(cum, tvb(14, 2):int())):set_generated()
	end
	s:add(F_entropy, tvb(16, 4))
	s:add(F_sport, tvb(20, 2))
	s:add(F_epoch, tvb(22, 2))
	s:add(F_reserved, tvb(24, 1))
	s:add(F_cum, tvb(25, 3))
	s:add(F_cctype, tvb(28, 1))
	local cc = s:add(F_ccflags, tvb(28, 1))
	cc:add(F_ecn, tvb(28, 1))
	cc:add(F_dup, tvb(28, 1))
	cc:add(F_delayed, tvb(28, 1))
	s:add(F_range, tvb(29, 1))
	if presp then
		s:add(F_svc, tvb(30, 2))
	else
		s:add(F_sackoff, tvb(30, 2))
	end
	-- A probe response has no bitmap: its tags are in its place
	-- (unless it has an ITETH, as include/mrc/wire.h reads it).
	local ptags = presp and iteth_len(tvb) == 0
	local tags = ""
	if ptags then
		tags = tags_at(s, tvb, 32, "Incarnation tags (SETH bytes 20-27)")
	else
		s:add(F_bitmap, tvb(32, 8))
	end
	if not presp then
		s:add(F_sacked, sacked_list(psn_add(cum, tvb(30, 2):int()),
			tvb(32, 8):bytes())):set_generated()
	end
	local c = tree:add(mrc, tvb(40, 8), "CC state")
	c:add(F_tsecho, tvb(40, 2))
	c:add(F_ooo, tvb(42, 2))
	c:add(F_restore, tvb(44, 1))
	c:add(F_penalty, tvb(44, 1))
	c:add(F_rcvd, tvb(45, 3))
	if ptags and tvb(36, 4):uint() == 0 then
		tree:add_proto_expert_info(E_untagged,
			"Probe response echoing tag 0 (SETH bytes 24-27): " ..
			"no mrc prober takes it")
	end
	if presp then
		return string.format(" probe response #%d ev %d%s",
			tvb(14, 2):uint(), tvb(16, 4):uint(), tags)
	end
	return string.format(" cum %d acked %d ev %d", cum,
		psn_add(cum, tvb(14, 2):int()), tvb(16, 4):uint())
end

local function nack(tree, tvb, pinfo)
	local n = tree:add(mrc, tvb(12, 20), "NETH")
	n:add(F_nexthdr, tvb(12, 1))
	n:add(F_reserved, tvb(13, 1))
	n:add(F_reason, tvb(14, 1))
	n:add(F_vendor, tvb(15, 1))
	n:add(F_entropy, tvb(16, 4))
	n:add(F_sport, tvb(20, 2))
	n:add(F_epoch, tvb(22, 2))
	n:add(F_reserved, tvb(24, 1))
	n:add(F_nackpsn, tvb(25, 3))
	n:add(F_cctype, tvb(28, 1))
	n:add(F_reserved, tvb(29, 1))
	n:add(F_tsecho, tvb(30, 2))
	local r = tvb(14, 1):uint()
	return string.format(" reason 0x%02x (%s) ev %d", r,
		NACK_REASON[r] or "?", tvb(16, 4):uint())
end

-- A probe: its sender's tag in PETH bytes 0-3 (MRC 1.0's reserved
-- zeros), no echo.
local function probe(tree, tvb, pinfo)
	local p = tree:add(mrc, tvb(12, 16), "PETH")
	local tag = tvb(12, 4):uint()
	p:add(F_tag, tvb(12, 4))
	p:add(F_probeno, tvb(16, 2))
	p:add(F_reserved, tvb(18, 2))
	p:add(F_sport, tvb(20, 2))
	p:add(F_pdport, tvb(22, 2))
	p:add(F_pts, tvb(24, 2))
	p:add(F_pflags, tvb(26, 2))
	if tag == 0 and iteth_len(tvb) == 0 then
		tree:add_proto_expert_info(E_untagged,
			"Probe with tag 0 (PETH bytes 0-3): no mrc queue " ..
			"pair answers it")
	end
	return string.format(" #%d ev %d tag 0x%08x", tvb(16, 2):uint(),
		pinfo.src_port, tag)
end

function mrc.dissector(tvb, pinfo, tree)
	local len = tvb:len()

	pinfo.cols.protocol = "MRC"
	if len < BTH_LEN then
		tree:add(mrc, tvb(), "mrc (short)"):add_proto_expert_info(E_short)
		pinfo.cols.info = "short"
		return len
	end
	local op = tvb(0, 1):uint()
	local name = OP[op] or string.format("opcode 0x%02x", op)
	local t = tree:add(mrc, tvb(), "mrc " .. name)
	bth(t, tvb)
	pinfo.cols.info = name
	if bit.band(tvb(1, 1):uint(), 0x0f) ~= 0 then
		t:add_proto_expert_info(E_version)
		return len
	end
	local sp, more = 0, ""
	if is_data(op) then
		local need
		need, sp, more = data(t, tvb, pinfo, op)
		if len < need then
			t:add_proto_expert_info(E_short)
			return len
		end
	else
		local clen = CTL_LEN[op]
		if not clen then
			t:add_proto_expert_info(E_opcode)
			return len
		end
		local it = iteth_len(tvb)
		if len < BTH_LEN + clen + it then
			t:add_proto_expert_info(E_short)
			return len
		end
		if op == 0xD1 then
			local a = t:add(mrc, tvb(12, 4), "AETH")
			a:add(F_sport, tvb(12, 2))
			a:add(F_epoch, tvb(14, 2))
			sp = tvb(12, 2):uint()
		elseif op == 0xDC then
			more = sack(t, tvb, pinfo)
			sp = tvb(20, 2):uint()
		elseif op == 0xDD then
			more = nack(t, tvb, pinfo)
			sp = tvb(20, 2):uint()
		else
			more = probe(t, tvb, pinfo)
			sp = tvb(20, 2):uint()
		end
		-- The ITETH ends a control packet's headers.
		if it > 0 then
			more = more .. iteth(t, tvb, BTH_LEN + clen)
		end
		if len > BTH_LEN + clen + it then
			t:add_proto_expert_info(E_trailing)
		end
	end
	-- A probe and its response have no ITETH: their tags, if any,
	-- were looked at above.
	local presp = op == 0xDC and bit.band(tvb(13, 1):uint(), 0x02) ~= 0
	if bit.band(tvb(8, 1):uint(), TAGGED) == 0 and op ~= 0xDE and
	    not presp then
		t:add_proto_expert_info(E_untagged)
	end
	pinfo.cols.info = string.format("%s %d -> %d psn %d%s", name, sp,
		tvb(5, 3):uint(), tvb(9, 3):uint(), more)
	return len
end

DissectorTable.get("udp.port"):add(4791, mrc)

-- The UDP source port of an mrc packet is its entropy value, 256..383 at
-- the defaults, where PTP (319, 320) and others live; Wireshark gives a
-- packet to the dissector of its lower port first, so such packets
-- would be misread.  Run heuristics first (-o udp.try_heuristic_first:TRUE,
-- or Preferences > Protocols > UDP) and this one claims every packet to
-- UDP port 4791 whose BTH has an mrc opcode and transport version 0.
local function heuristic(tvb, pinfo, tree)
	if pinfo.dst_port ~= 4791 or tvb:len() < BTH_LEN then
		return false
	end
	local op = tvb(0, 1):uint()
	if not (is_data(op) or CTL_LEN[op]) or
	    bit.band(tvb(1, 1):uint(), 0x0f) ~= 0 then
		return false
	end
	mrc.dissector(tvb, pinfo, tree)
	return true
end
mrc:register_heuristic("udp", heuristic)
