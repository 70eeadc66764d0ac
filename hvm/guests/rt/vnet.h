/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vnet.h - virtio-net for xenft guests: receive buffers kept posted,
 * frames sent one descriptor each (header and frame together).
 */
#ifndef XENFT_GUEST_VNET_H
#define XENFT_GUEST_VNET_H

#include "virtio.h"

#define VNET_FRAME  1514            /* largest frame we send */
#define VNET_VECTOR 0x40            /* config 0x40, RX 0x41, TX 0x42 */

/* Find and start the card; its MAC into 'mac'.  0, or -1 (said why). */
int vnet_start(uint8_t mac[6], const char *who);
/* The next received frame (false: none yet); vnet_rx_done() gives its
 * buffer back to the card. */
bool vnet_rx(uint8_t **frame, uint32_t *len);
void vnet_rx_done(void);
/* Send a frame (14 to VNET_FRAME bytes); waits only while all the
 * transmit buffers are in flight. */
void vnet_tx(const void *frame, uint32_t len);

#endif /* XENFT_GUEST_VNET_H */
