/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names of the MRC_STAT_* counters as the CLI prints them (snake_case,
 * after the spec's records where the spec names one).  Pure logic.
 */
#ifndef _MRC_STAT_NAMES_H
#define _MRC_STAT_NAMES_H

#include <linux/mrc.h>

static const char * const mrc_stat_names[__MRC_STAT_MAX] = {
	[MRC_STAT_RX_PACKETS]		= "rx_packets",
	[MRC_STAT_RX_BYTES]		= "rx_bytes",
	[MRC_STAT_RX_DROP_SHORT]	= "rx_drop_short",
	[MRC_STAT_RX_DROP_BAD_VERSION]	= "rx_drop_bad_version",
	[MRC_STAT_RX_DROP_BAD_OPCODE]	= "rx_drop_bad_opcode",
	[MRC_STAT_RX_DROP_NO_QP]	= "rx_drop_no_qp",
	[MRC_STAT_RX_DROP_MALFORMED]	= "rx_drop_malformed",
	[MRC_STAT_RX_DROP_OUT_OF_WINDOW] = "rx_drop_out_of_window",
	[MRC_STAT_RX_DROP_NO_MEM]	= "rx_drop_no_mem",
	[MRC_STAT_RX_DUP_PACKETS]	= "rx_dup_packets",
	[MRC_STAT_TX_PACKETS]		= "tx_packets",
	[MRC_STAT_TX_BYTES]		= "tx_bytes",
	[MRC_STAT_TX_DATA_PACKETS]	= "tx_data_packets",
	[MRC_STAT_RX_DATA_PACKETS]	= "rx_data_packets",
	[MRC_STAT_TX_MSGS]		= "tx_msgs",
	[MRC_STAT_RX_MSGS]		= "rx_msgs",
	[MRC_STAT_RTX_SACK]		= "total_rtx_sack",
	[MRC_STAT_RTX_TIMEOUT]		= "total_rtx_timeout",
	[MRC_STAT_TIMEOUTS]		= "total_timeouts",
	[MRC_STAT_ACK_TX]		= "ack_tx",
	[MRC_STAT_ACK_RX]		= "ack_rx",
	[MRC_STAT_SACK_TX]		= "sack_tx",
	[MRC_STAT_SACK_RX]		= "sack_rx",
	[MRC_STAT_NACK_TX]		= "nack_tx",
	[MRC_STAT_NACK_RX]		= "nack_rx",
	[MRC_STAT_OOO_EVENTS]		= "total_ooo_events",
	[MRC_STAT_REORDER_DEPTH_SUM]	= "reorder_depth_sum",
	[MRC_STAT_CALC_MEAN_REORDER_DEPTH] = "calc_mean_reorder_depth",
	[MRC_STAT_CALC_MAX_REORDER_DEPTH] = "calc_max_reorder_depth",
	[MRC_STAT_QP_OPENED]		= "qp_opened",
	[MRC_STAT_QP_CLOSED]		= "qp_closed",
	[MRC_STAT_QP_FAILED]		= "qp_failed",
	[MRC_STAT_TX_ERRORS]		= "tx_errors",
	[MRC_STAT_PROBE_TX]		= "total_probe_pkts_tx",
	[MRC_STAT_PROBE_RX]		= "total_probe_pkts_rx",
	[MRC_STAT_PROBE_RESP_TX]	= "probe_resp_tx",
	[MRC_STAT_PROBE_RESP_RX]	= "probe_resp_rx",
	[MRC_STAT_SKIP_MARKED]		= "skip_marked",
	[MRC_STAT_SKIP_CLEARED]		= "skip_cleared",
	[MRC_STAT_EV_BAD]		= "ev_assumed_bad",
	[MRC_STAT_EV_RESTORED]		= "ev_restored",
	[MRC_STAT_PEER_OPENED]		= "peer_opened",
	[MRC_STAT_PEER_CLOSED]		= "peer_closed",
	[MRC_STAT_MONITOR_EVENTS]	= "monitor_events",
	[MRC_STAT_MONITOR_DROPS]	= "monitor_drops",
	[MRC_STAT_PROBE_SKIP_QUEUE_STOPPED] = "probe_skip_queue_stopped",
	[MRC_STAT_ACK_DELAYED_TX]	= "ack_delayed_tx",
	[MRC_STAT_ICMP_TOO_BIG]		= "icmp_too_big",
	[MRC_STAT_ICMP_UNREACH]		= "icmp_unreach",
	[MRC_STAT_ICMP_IGNORED]		= "icmp_ignored",
	[MRC_STAT_RTX_MTU]		= "total_rtx_mtu",
	[MRC_STAT_RX_EVICTED]		= "rx_msgs_evicted",
	[MRC_STAT_UDP_SOCKETS]		= "udp_sockets_open",
	[MRC_STAT_RX_DROP_FILTER]	= "rx_drop_filter",
};

#endif /* _MRC_STAT_NAMES_H */
