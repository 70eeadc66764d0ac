// SPDX-License-Identifier: GPL-2.0-only
/*
 * kvstore.c - a key-value store served over UDP, with the small network
 * stack it needs (Ethernet, ARP replies, IPv4, ICMP echo, UDP) and every
 * write persisted to the disk before it is acknowledged.
 *
 * Requests to UDP port 7777, one per datagram, plain text:
 *   PUT <key> <value>   store; answered "OK <key>" once on disk
 *   GET <key>           answered "VAL <value>" or "NONE <key>"
 *   COUNT               answered "COUNT <n>"
 * Each stored key is also logged on the console as "kv: put <key>".
 *   ip=A.B.C.D          the guest's address (default 10.77.0.2)
 */
#include "rt/vblk.h"
#include "rt/vnet.h"

#define KV_PORT     7777
#define KEYS        512
#define KEY_MAX     32
#define VAL_MAX     96

struct entry {
    char key[KEY_MAX], val[VAL_MAX];
    bool used;
};

static struct entry table[KEYS];
static uint32_t entries;
static uint8_t sector_buf[512];
static uint64_t disk_sectors;
static uint32_t disk_next;
static uint8_t mac[6];
static uint32_t my_ip;          /* network byte order, as on the wire */

static uint16_t be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static void put_be16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static uint16_t ip_sum(const uint8_t *p, uint32_t len)
{
    uint32_t s = 0;

    for (uint32_t i = 0; i + 1 < len; i += 2)
        s += be16(p + i);
    if (len & 1)
        s += (uint32_t)p[len - 1] << 8;
    while (s >> 16)
        s = (s & 0xffff) + (s >> 16);
    return (uint16_t)~s;
}

static uint32_t parse_ip(const char *cmdline)
{
    const char *p = cmdline;
    uint8_t b[4] = { 10, 77, 0, 2 };

    for (; *p; p++) {
        if ((p == cmdline || p[-1] == ' ' || p[-1] == ',') &&
            p[0] == 'i' && p[1] == 'p' && p[2] == '=') {
            p += 3;
            for (int i = 0; i < 4; i++) {
                uint32_t v = 0;

                while (*p >= '0' && *p <= '9')
                    v = v * 10 + (uint32_t)(*p++ - '0');
                b[i] = (uint8_t)v;
                if (*p == '.')
                    p++;
            }
            break;
        }
    }
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
           (uint32_t)b[3] << 24;
}

/* Send 'len' bytes of frame, padded to Ethernet's least. */
static void send_frame(uint8_t *f, uint32_t len)
{
    for (; len < 60; len++)
        f[len] = 0;
    vnet_tx(f, len);
}

/* Write one sector and wait for the disk to say it is done. */
static bool persist(const char *key, const char *val)
{
    if (!disk_sectors)
        return true;
    memset(sector_buf, 0, sizeof(sector_buf));
    memcpy(sector_buf, "KV", 2);
    memcpy(sector_buf + 4, key, KEY_MAX);
    memcpy(sector_buf + 4 + KEY_MAX, val, VAL_MAX);
    return vblk_rw(VBLK_OUT, disk_next++ % (uint32_t)disk_sectors,
                   sector_buf, 1) == 0;
}

static uint32_t word(const char *p, uint32_t n, char *out, uint32_t max)
{
    uint32_t i = 0;

    while (i < n && p[i] != ' ' && p[i] != '\n' && i + 1 < max) {
        out[i] = p[i];
        i++;
    }
    out[i] = '\0';
    return i;
}

static struct entry *find(const char *key, bool create)
{
    struct entry *free_e = NULL;

    for (int i = 0; i < KEYS; i++) {
        struct entry *e = &table[i];
        int j = 0;

        if (!e->used) {
            free_e = free_e ? free_e : e;
            continue;
        }
        while (j < KEY_MAX && e->key[j] == key[j] && key[j])
            j++;
        if (j < KEY_MAX && e->key[j] == key[j])
            return e;
    }
    return create ? free_e : NULL;
}

static uint32_t append(char *out, uint32_t n, const char *s)
{
    while (*s && n < 200)
        out[n++] = *s++;
    return n;
}

/* One request in, the answer's text out; 0: no answer. */
static uint32_t serve(const char *req, uint32_t len, char *out)
{
    char key[KEY_MAX], val[VAL_MAX];
    uint32_t n = 0;

    if (len > 4 && !memcmp(req, "PUT ", 4)) {
        uint32_t k = word(req + 4, len - 4, key, sizeof(key));
        struct entry *e;

        if (!k || 4 + k + 1 >= len)
            return 0;
        word(req + 5 + k, len - 5 - k, val, sizeof(val));
        e = find(key, true);
        if (!e)
            return append(out, 0, "FULL");
        if (!persist(key, val))
            return append(out, 0, "ERROR disk");
        if (!e->used)
            entries++;
        memset(e, 0, sizeof(*e));
        memcpy(e->key, key, KEY_MAX);
        memcpy(e->val, val, VAL_MAX);
        e->used = true;
        puts_uart("kv: put ");
        puts_uart(key);
        puts_uart("\n");
        n = append(out, 0, "OK ");
        return append(out, n, key);
    }
    if (len > 4 && !memcmp(req, "GET ", 4)) {
        struct entry *e;

        word(req + 4, len - 4, key, sizeof(key));
        e = find(key, false);
        n = append(out, 0, e ? "VAL " : "NONE ");
        return append(out, n, e ? e->val : key);
    }
    if (len >= 5 && !memcmp(req, "COUNT", 5)) {
        char num[11];
        int i = 10;
        uint32_t v = entries;

        num[i] = '\0';
        do {
            num[--i] = (char)('0' + v % 10);
            v /= 10;
        } while (v);
        n = append(out, 0, "COUNT ");
        return append(out, n, num + i);
    }
    return 0;
}

/* Answer in place: swap the addresses of frame 'f' and send it back. */
static void reply(uint8_t *f, uint32_t ip_len)
{
    uint8_t *ip = f + 14;

    memcpy(f, f + 6, 6);
    memcpy(f + 6, mac, 6);
    memcpy(ip + 16, ip + 12, 4);
    memcpy(ip + 12, &my_ip, 4);
    put_be16(ip + 2, (uint16_t)ip_len);
    ip[8] = 64;
    put_be16(ip + 10, 0);
    put_be16(ip + 10, ip_sum(ip, 20));
    send_frame(f, 14 + ip_len);
}

static void handle(uint8_t *f, uint32_t len)
{
    static uint8_t out[VNET_FRAME];
    uint8_t *ip = f + 14;

    if (len < 42)
        return;
    if (be16(f + 12) == 0x0806 && be16(ip + 6) == 1 &&
        !memcmp(ip + 24, &my_ip, 4)) {
        /* ARP: who has our address?  We do. */
        memcpy(out, f + 6, 6);
        memcpy(out + 6, mac, 6);
        memcpy(out + 12, f + 12, 8);
        put_be16(out + 20, 2);
        memcpy(out + 22, mac, 6);
        memcpy(out + 28, &my_ip, 4);
        memcpy(out + 32, ip + 8, 10);
        send_frame(out, 42);
        return;
    }
    if (be16(f + 12) != 0x0800 || ip[0] != 0x45 ||
        memcmp(ip + 16, &my_ip, 4) || be16(ip + 2) + 14u > len)
        return;
    uint32_t ip_len = be16(ip + 2);
    uint8_t *l4 = ip + 20;

    if (ip[9] == 1 && ip_len >= 28 && l4[0] == 8) {
        /* ICMP echo: the same bytes back, as a reply. */
        l4[0] = 0;
        put_be16(l4 + 2, 0);
        put_be16(l4 + 2, ip_sum(l4, ip_len - 20));
        reply(f, ip_len);
        return;
    }
    if (ip[9] == 17 && ip_len >= 28 && be16(l4 + 2) == KV_PORT) {
        uint32_t n = serve((const char *)l4 + 8,
                           be16(l4 + 4) >= 8 ? be16(l4 + 4) - 8u : 0,
                           (char *)l4 + 8);
        uint16_t sport = be16(l4);

        if (!n)
            return;
        put_be16(l4, KV_PORT);
        put_be16(l4 + 2, sport);
        put_be16(l4 + 4, (uint16_t)(8 + n));
        put_be16(l4 + 6, 0);        /* no UDP checksum: allowed on IPv4 */
        reply(f, 20 + 8 + n);
    }
}

void guest_main(const char *cmdline)
{
    my_ip = parse_ip(cmdline);
    irq_set(IRQ_TIMER, NULL);
    pit_set_hz(100);
    if (vnet_start(mac, "kv")) {
        for (;;)
            sti_hlt();
    }
    if (vblk_start(&disk_sectors, "kv") || disk_sectors > 0xffffffffu)
        disk_sectors = 0;
    puts_uart("kv: serving UDP port 7777");
    puts_uart(disk_sectors ? ", writes on disk\n" : ", no disk\n");
    for (;;) {
        uint8_t *f;
        uint32_t len;

        while (!vnet_rx(&f, &len)) {
            sti_hlt();
            cli();
        }
        handle(f, len);
        vnet_rx_done();
    }
}
