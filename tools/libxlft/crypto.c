// SPDX-License-Identifier: GPL-2.0-only
/*
 * crypto.c - logging channel sessions (WIRE.md, "Handshake" and
 * "Per-frame protection"): the pre-shared key, the handshake that
 * proves both sides hold it and derives fresh keys per connection, and
 * AES-256-GCM with strict sequence numbers on every frame after it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>

#include "ft_log.h"
#include "ft_ring.h"
#include "xlft_crypto.h"
#include "say.h"

#define IV_SIZE     12u
#define OKM_SIZE    (2 * (XLFT_KEY_SIZE + IV_SIZE) + XLFT_KEY_SIZE)
#define HELLO_FRAME (XLFT_HDR_SIZE + XLFT_HELLO_SIZE)
#define TEXT_MAX    320u

static const char kdf_label[] = "xenft channel v2";
static const char mac_label_r[] = "xenft responder";
static const char mac_label_i[] = "xenft initiator";

enum state {
    S_START,            /* initiator, HELLO not yet written */
    S_WAIT_HELLO,       /* responder */
    S_WAIT_ACK,         /* initiator, HELLO sent */
    S_WAIT_FINISH,      /* responder, HELLO_ACK sent */
    S_LIVE,
};

/* One direction of the connection. */
struct dir {
    EVP_CIPHER_CTX *ctx;
    uint8_t iv[IV_SIZE];
    uint64_t seq;           /* next frame's sequence number */
};

struct xlft_session {
    struct xlft_session_cfg cfg;
    uint8_t psk[XLFT_KEY_SIZE];
    enum state state;
    int error;              /* the first error, final */
    uint16_t version;       /* negotiated; 0 before */
    uint32_t peer_domid;
    char host[XLFT_NAME_SIZE + 1];          /* ours */
    char pair[XLFT_NAME_SIZE + 1];          /* "" until agreed: any */
    char peer_host[XLFT_NAME_SIZE + 1];
    uint8_t nonce[XLFT_NONCE_SIZE];         /* ours */
    uint8_t hello[HELLO_FRAME];             /* the HELLO, as sent */
    struct xlft_hello peer_hello;           /* responder: what it said */
    uint8_t key_c[XLFT_KEY_SIZE];           /* key confirmation */
    struct dir tx, rx;
};

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int xlft_key_load(const char *path, uint8_t key[XLFT_KEY_SIZE],
                  char *msg, size_t msglen)
{
    char text[2 * XLFT_KEY_SIZE + 2];
    struct stat st;
    ssize_t n;
    size_t got = 0;
    int fd, err = 0;

    /*
     * Not through a symbolic link, which whoever can write its directory
     * may point anywhere; and not waiting for a writer of a FIFO.
     */
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW |
              O_NONBLOCK);
    if (fd < 0 && errno == ELOOP) {
        xlft_say(msg, msglen, "key file %s is a symbolic link; name the "
            "file itself", path);
        return -ELOOP;
    }
    if (fd < 0) {
        err = errno;
        xlft_say(msg, msglen, "key file %s: %s", path, strerror(err));
        return -err;
    }
    if (fstat(fd, &st)) {
        err = errno;
        xlft_say(msg, msglen, "key file %s: %s", path, strerror(err));
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        xlft_say(msg, msglen, "key file %s is not a regular file", path);
        err = EINVAL;
        goto out;
    }
    /* Root's, or ours when not root (tests, a non-root daemon). */
    if (st.st_uid != 0 && st.st_uid != geteuid()) {
        xlft_say(msg, msglen, "key file %s is owned by uid %u; it must be "
            "root's (or uid %u's, which this runs as)", path,
            (unsigned int)st.st_uid, (unsigned int)geteuid());
        err = EPERM;
        goto out;
    }
    if ((st.st_mode & 07777) != 0600 && (st.st_mode & 07777) != 0400) {
        xlft_say(msg, msglen, "key file %s has mode %04o; make it mode 0600 "
            "or 0400 (read by its owner only)", path,
            (unsigned int)(st.st_mode & 07777));
        err = EPERM;
        goto out;
    }
    /* One byte more than a key and its newline, to see a longer file. */
    while (got < sizeof(text)) {
        n = read(fd, text + got, sizeof(text) - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            err = errno;
            xlft_say(msg, msglen, "key file %s: %s", path, strerror(err));
            goto out;
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    if (got == sizeof(text) ||
        (got == 2 * XLFT_KEY_SIZE + 1 && text[got - 1] != '\n')) {
        xlft_say(msg, msglen, "key file %s holds more than %u hex digits and a "
            "newline", path, 2 * XLFT_KEY_SIZE);
        err = EINVAL;
        goto out;
    }
    if (got && text[got - 1] == '\n')
        got--;
    for (size_t i = 0; i < got; i++) {
        if (hexval((unsigned char)text[i]) < 0) {
            xlft_say(msg, msglen, "key file %s: byte %zu (0x%02x) is not a hex "
                "digit", path, i, (unsigned char)text[i]);
            err = EINVAL;
            goto out;
        }
    }
    if (got != 2 * XLFT_KEY_SIZE) {
        xlft_say(msg, msglen, "key file %s holds %zu hex digits; a key is %u",
            path, got, 2 * XLFT_KEY_SIZE);
        err = EINVAL;
        goto out;
    }
    for (size_t i = 0; i < XLFT_KEY_SIZE; i++)
        key[i] = (uint8_t)(hexval(text[2 * i]) << 4 |
                           hexval(text[2 * i + 1]));
out:
    OPENSSL_cleanse(text, sizeof(text));
    close(fd);
    return -err;
}

int xlft_session_new(struct xlft_session **sp,
                     const struct xlft_session_cfg *cfg,
                     char *msg, size_t msglen)
{
    struct xlft_session *s;

    *sp = NULL;
    if ((!cfg->key && (cfg->initiator || !cfg->accept)) ||
        (cfg->role != XLFT_ROLE_PRIMARY &&
         cfg->role != XLFT_ROLE_SECONDARY) ||
        (cfg->enc != XLFT_ENC_DISABLED && cfg->enc != XLFT_ENC_REQUIRED)) {
        xlft_say(msg, msglen, "session: no key, or role %u or encryption %u "
            "undefined", cfg->role, cfg->enc);
        return -EINVAL;
    }
    if (!ft_kind_defined(cfg->counter, cfg->cpu)) {
        xlft_say(msg, msglen, "session: counter %u or CPU %u undefined",
            cfg->counter, cfg->cpu);
        return -EINVAL;
    }
    if (!cfg->host || !xlft_name_ok(cfg->host) ||
        (cfg->pair && !xlft_name_ok(cfg->pair)) ||
        (!cfg->pair && cfg->initiator)) {
        xlft_say(msg, msglen, "session: host name '%s' or pair '%s' is no "
            "name (1 to %u of letters, digits, '-', '_', '.'), or an "
            "initiator names no pair", cfg->host ? cfg->host : "",
            cfg->pair ? cfg->pair : "", XLFT_NAME_SIZE);
        return -EINVAL;
    }
    s = calloc(1, sizeof(*s));
    if (!s) {
        xlft_say(msg, msglen, "session: out of memory");
        return -ENOMEM;
    }
    s->tx.ctx = EVP_CIPHER_CTX_new();
    s->rx.ctx = EVP_CIPHER_CTX_new();
    if (!s->tx.ctx || !s->rx.ctx) {
        xlft_say(msg, msglen, "session: cannot create cipher contexts");
        xlft_session_free(s);
        return -ENOMEM;
    }
    s->cfg = *cfg;
    if (cfg->key)
        memcpy(s->psk, cfg->key, XLFT_KEY_SIZE);
    s->cfg.key = s->psk;
    snprintf(s->host, sizeof(s->host), "%s", cfg->host);
    snprintf(s->pair, sizeof(s->pair), "%s", cfg->pair ? cfg->pair : "");
    s->cfg.host = s->host;
    s->cfg.pair = s->pair;
    s->state = cfg->initiator ? S_START : S_WAIT_HELLO;
    *sp = s;
    return 0;
}

void xlft_session_free(struct xlft_session *s)
{
    if (!s)
        return;
    EVP_CIPHER_CTX_free(s->tx.ctx);
    EVP_CIPHER_CTX_free(s->rx.ctx);
    OPENSSL_cleanse(s, sizeof(*s));
    free(s);
}

bool xlft_session_established(const struct xlft_session *s)
{
    return s->state == S_LIVE && !s->error;
}

const char *xlft_session_pair(const struct xlft_session *s)
{
    return s->pair;
}

const char *xlft_session_peer_host(const struct xlft_session *s)
{
    return s->peer_host;
}

size_t xlft_session_overhead(const struct xlft_session *s)
{
    return XLFT_HDR_SIZE +
           (s->cfg.enc == XLFT_ENC_REQUIRED ? XLFT_TAG_SIZE : 0);
}

unsigned int xlft_session_version(const struct xlft_session *s)
{
    return s->version;
}

uint32_t xlft_session_peer_domid(const struct xlft_session *s)
{
    return s->peer_domid;
}

static const char *role_name(uint8_t role)
{
    return role == XLFT_ROLE_PRIMARY ? "primary" : "secondary";
}

static const char *enc_name(uint8_t enc)
{
    return enc == XLFT_ENC_REQUIRED ? "required" : "disabled";
}

/* --- key schedule -------------------------------------------------- */

/*
 * TH = SHA-256(HELLO || HELLO_ACK without its MAC); then the keys of
 * both directions and the key confirmation key from HKDF (WIRE.md).
 */
static int derive(struct xlft_session *s, const uint8_t *nonce_i,
                  const uint8_t *nonce_r, const uint8_t *ack,
                  size_t ack_len, char *text)
{
    uint8_t th[32], salt[2 * XLFT_NONCE_SIZE], okm[OKM_SIZE];
    uint8_t info[sizeof(kdf_label) - 1 + sizeof(th)];
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    EVP_KDF *kdf = NULL;
    EVP_KDF_CTX *kctx = NULL;
    OSSL_PARAM params[5], *p = params;
    const uint8_t *k_ir = okm, *iv_ir = okm + XLFT_KEY_SIZE;
    const uint8_t *k_ri = iv_ir + IV_SIZE, *iv_ri = k_ri + XLFT_KEY_SIZE;
    struct dir *d_ir = s->cfg.initiator ? &s->tx : &s->rx;
    struct dir *d_ri = s->cfg.initiator ? &s->rx : &s->tx;
    int rc = -EIO;

    if (!md || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1 ||
        EVP_DigestUpdate(md, s->hello, sizeof(s->hello)) != 1 ||
        EVP_DigestUpdate(md, ack, ack_len - XLFT_MAC_SIZE) != 1 ||
        EVP_DigestFinal_ex(md, th, NULL) != 1) {
        snprintf(text, TEXT_MAX, "SHA-256 of the handshake failed");
        goto out;
    }
    memcpy(salt, nonce_i, XLFT_NONCE_SIZE);
    memcpy(salt + XLFT_NONCE_SIZE, nonce_r, XLFT_NONCE_SIZE);
    memcpy(info, kdf_label, sizeof(kdf_label) - 1);
    memcpy(info + sizeof(kdf_label) - 1, th, sizeof(th));

    *p++ = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST,
                                            (char *)"SHA256", 0);
    *p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, s->psk,
                                             sizeof(s->psk));
    *p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, salt,
                                             sizeof(salt));
    *p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, info,
                                             sizeof(info));
    *p = OSSL_PARAM_construct_end();
    kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
    kctx = kdf ? EVP_KDF_CTX_new(kdf) : NULL;
    if (!kctx || EVP_KDF_derive(kctx, okm, sizeof(okm), params) != 1) {
        snprintf(text, TEXT_MAX, "HKDF-SHA256 failed");
        goto out;
    }
    memcpy(d_ir->iv, iv_ir, IV_SIZE);
    memcpy(d_ri->iv, iv_ri, IV_SIZE);
    memcpy(s->key_c, iv_ri + IV_SIZE, XLFT_KEY_SIZE);
    if (EVP_CipherInit_ex(d_ir->ctx, EVP_aes_256_gcm(), NULL, k_ir, NULL,
                          d_ir == &s->tx) != 1 ||
        EVP_CipherInit_ex(d_ri->ctx, EVP_aes_256_gcm(), NULL, k_ri, NULL,
                          d_ri == &s->tx) != 1) {
        snprintf(text, TEXT_MAX, "AES-256-GCM setup failed");
        goto out;
    }
    rc = 0;
out:
    OPENSSL_cleanse(okm, sizeof(okm));
    EVP_KDF_CTX_free(kctx);
    EVP_KDF_free(kdf);
    EVP_MD_CTX_free(md);
    return rc;
}

static int confirm_mac(const struct xlft_session *s, const char *label,
                       uint8_t mac[XLFT_MAC_SIZE])
{
    size_t n = 0;

    if (!EVP_Q_mac(NULL, "HMAC", NULL, "SHA256", NULL, s->key_c,
                   sizeof(s->key_c), (const uint8_t *)label, strlen(label),
                   mac, XLFT_MAC_SIZE, &n) || n != XLFT_MAC_SIZE)
        return -EIO;
    return 0;
}

/* --- per-frame protection ------------------------------------------ */

static void frame_nonce(const struct dir *d, uint64_t seq,
                        uint8_t nonce[IV_SIZE])
{
    memcpy(nonce, d->iv, IV_SIZE);
    for (int i = 0; i < 8; i++)
        nonce[4 + i] ^= (uint8_t)(seq >> (8 * i));
}

/*
 * Encrypt the 'len' bytes at 'p' in place, then 'data' from where it lies
 * into the bytes after them, the tag after that: the records of a LOG
 * frame are read once, not copied and then encrypted.
 */
static int gcm_seal(struct dir *d, uint64_t seq, const uint8_t *aad,
                    uint8_t *p, size_t len, const struct xlft_data *data)
{
    uint8_t nonce[IV_SIZE], *end = p + len + data->len;
    int outl;

    frame_nonce(d, seq, nonce);
    if (EVP_EncryptInit_ex(d->ctx, NULL, NULL, NULL, nonce) != 1 ||
        EVP_EncryptUpdate(d->ctx, NULL, &outl, aad, XLFT_HDR_SIZE) != 1 ||
        EVP_EncryptUpdate(d->ctx, p, &outl, p, (int)len) != 1 ||
        (data->len &&
         EVP_EncryptUpdate(d->ctx, p + len, &outl, data->bytes,
                           (int)data->len) != 1) ||
        EVP_EncryptFinal_ex(d->ctx, end, &outl) != 1 ||
        EVP_CIPHER_CTX_ctrl(d->ctx, EVP_CTRL_GCM_GET_TAG, XLFT_TAG_SIZE,
                            end) != 1)
        return -EIO;
    return 0;
}

/* Decrypt in place 'len' bytes followed by their tag; -EBADMSG if false. */
static int gcm_open(struct dir *d, uint64_t seq, const uint8_t *aad,
                    uint8_t *p, size_t len)
{
    uint8_t nonce[IV_SIZE];
    int outl;

    frame_nonce(d, seq, nonce);
    if (EVP_DecryptInit_ex(d->ctx, NULL, NULL, NULL, nonce) != 1 ||
        EVP_DecryptUpdate(d->ctx, NULL, &outl, aad, XLFT_HDR_SIZE) != 1 ||
        EVP_DecryptUpdate(d->ctx, p, &outl, p, (int)len) != 1 ||
        EVP_CIPHER_CTX_ctrl(d->ctx, EVP_CTRL_GCM_SET_TAG, XLFT_TAG_SIZE,
                            p + len) != 1)
        return -EIO;
    if (EVP_DecryptFinal_ex(d->ctx, p + len, &outl) != 1)
        return -EBADMSG;
    return 0;
}

/* The next frame of this side, sealed if the session encrypts. */
static int seal(struct xlft_session *s, const struct xlft_msg *m,
                uint8_t *out, size_t cap, char *msg, size_t msglen)
{
    bool enc = s->cfg.enc == XLFT_ENC_REQUIRED;
    size_t tag = enc ? XLFT_TAG_SIZE : 0;
    struct xlft_hdr h = {
        .version = (uint8_t)s->version, .type = m->type,
        .flags = enc ? XLFT_F_ENCRYPTED : 0, .seq = s->tx.seq,
    };
    struct xlft_data data;
    int n;

    if (s->tx.seq == UINT64_MAX) {
        xlft_say(msg, msglen, "frame sequence numbers exhausted");
        return -EOVERFLOW;
    }
    if (cap < XLFT_HDR_SIZE + tag) {
        xlft_say(msg, msglen, "no room for a frame in %zu bytes", cap);
        return -ENOBUFS;
    }
    n = xlft_payload_put_head(m, out + XLFT_HDR_SIZE,
                              cap - XLFT_HDR_SIZE - tag, &data, msg, msglen);
    if (n < 0)
        return n;
    h.len = (uint32_t)(n + data.len + tag);
    xlft_hdr_put(out, &h);
    if (!enc) {
        if (data.len)
            memmove(out + XLFT_HDR_SIZE + n, data.bytes, data.len);
    } else if (gcm_seal(&s->tx, h.seq, out, out + XLFT_HDR_SIZE, (size_t)n,
                        &data)) {
        xlft_say(msg, msglen, "AES-256-GCM encryption failed");
        return -EIO;
    }
    s->tx.seq++;
    return (int)(XLFT_HDR_SIZE + h.len);
}

int xlft_session_seal(struct xlft_session *s, const struct xlft_msg *m,
                      uint8_t *out, size_t cap, char *msg, size_t msglen)
{
    if (s->error) {
        xlft_say(msg, msglen, "the session has failed");
        return s->error;
    }
    if (s->state != S_LIVE) {
        xlft_say(msg, msglen, "the handshake is not complete");
        return -ENOTCONN;
    }
    return seal(s, m, out, cap, msg, msglen);
}

/* --- handshake ----------------------------------------------------- */

/*
 * A handshake frame in clear, version 'version', numbered as this
 * side's next; the caller counts it once it is sure to send it.
 */
static int put_clear(struct xlft_session *s, const struct xlft_msg *m,
                     unsigned int version, uint8_t *out, size_t cap,
                     char *text)
{
    return xlft_frame_put(m, (uint8_t)version, s->tx.seq, out, cap, text,
                          TEXT_MAX);
}

int xlft_session_start(struct xlft_session *s, uint8_t *out, size_t cap,
                       char *msg, size_t msglen)
{
    struct xlft_msg m = { .type = XLFT_T_HELLO };
    char text[TEXT_MAX];
    int n;

    if (s->state != S_START || cap < HELLO_FRAME) {
        xlft_say(msg, msglen, "session: HELLO is the initiator's first frame, "
            "into %u bytes", HELLO_FRAME);
        return -EINVAL;
    }
    m.u.hello = (struct xlft_hello){
        .ver_min = XLFT_WIRE_VERSION_MIN, .ver_max = XLFT_WIRE_VERSION_MAX,
        .role = s->cfg.role, .enc = s->cfg.enc,
        .log_version = FT_LOG_VERSION, .domid = s->cfg.domid,
        .counter = s->cfg.counter, .cpu = s->cfg.cpu,
    };
    memcpy(m.u.hello.host, s->host, sizeof(s->host));
    memcpy(m.u.hello.pair, s->pair, sizeof(s->pair));
    if (RAND_bytes(s->nonce, sizeof(s->nonce)) != 1) {
        xlft_say(msg, msglen, "session: no random bytes for a nonce");
        return -EIO;
    }
    memcpy(m.u.hello.nonce, s->nonce, sizeof(s->nonce));
    /* A HELLO's header says version 1 whatever it offers (WIRE.md). */
    n = put_clear(s, &m, XLFT_WIRE_VERSION_HELLO, s->hello,
                  sizeof(s->hello), text);
    if (n != HELLO_FRAME) {
        xlft_say(msg, msglen, "session: %s", text);
        return -EIO;
    }
    memcpy(out, s->hello, HELLO_FRAME);
    s->tx.seq++;
    s->state = S_WAIT_ACK;
    return n;
}

/*
 * The peer's host for 'pair': never this host's own name (two hosts
 * that share one would both win the arbiter's claims), then whatever the
 * owner's 'accept' says; a responder's 'key' comes from it too.
 */
static int check_peer(struct xlft_session *s, const char *pair, uint8_t *key,
                      char *text)
{
    char why[TEXT_MAX - 2 * XLFT_NAME_SIZE - 24];
    int rc;

    if (!strcmp(s->peer_host, s->host)) {
        snprintf(text, TEXT_MAX, "pair %s: the peer is host %s, as this "
                 "host is: two hosts may not share a name (set host-name "
                 "in ft.conf)", pair, s->peer_host);
        return -ECONNREFUSED;
    }
    if (!s->cfg.accept)
        return 0;
    why[0] = '\0';
    rc = s->cfg.accept(s->cfg.arg, pair, s->peer_host, key, why,
                       sizeof(why));
    if (rc) {
        snprintf(text, TEXT_MAX, "pair %s, peer host %s: %s", pair,
                 s->peer_host, why[0] ? why : "refused");
        return -ECONNREFUSED;
    }
    return 0;
}

/*
 * The peer's log counts 'counter' on 'cpu', other than this side's: the
 * secondary could not replay what its primary records.
 */
static void kinds_differ(const struct xlft_session *s, uint8_t counter,
                         uint8_t cpu, char *text)
{
    bool primary = s->cfg.role == XLFT_ROLE_PRIMARY;

    snprintf(text, TEXT_MAX, "the primary's log counts %s on %s, the "
             "secondary's replay %s on %s: a log replays only where the "
             "same is counted on the same CPU",
             ft_counter_name(primary ? s->cfg.counter : counter),
             ft_cpu_name(primary ? s->cfg.cpu : cpu),
             ft_counter_name(primary ? counter : s->cfg.counter),
             ft_cpu_name(primary ? cpu : s->cfg.cpu));
}

/* Responder: a HELLO; answer it with HELLO_ACK and MAC_r. */
static int on_hello(struct xlft_session *s, const uint8_t *frame,
                    const struct xlft_hdr *h, const struct xlft_hello *hi,
                    uint8_t *reply, size_t *reply_len, char *text)
{
    /* The decoder refused a HELLO offering none of our versions. */
    unsigned int up = hi->ver_max < XLFT_WIRE_VERSION_MAX ?
                      hi->ver_max : XLFT_WIRE_VERSION_MAX;
    struct xlft_msg a = { .type = XLFT_T_HELLO_ACK };
    int n, rc;

    if (h->version != XLFT_WIRE_VERSION_HELLO) {
        snprintf(text, TEXT_MAX, "HELLO with version %u in its header, "
                 "not %u", h->version, XLFT_WIRE_VERSION_HELLO);
        return -EBADMSG;
    }
    if (hi->log_version != FT_LOG_VERSION) {
        snprintf(text, TEXT_MAX, "log format versions differ: initiator "
                 "%u, responder %u", hi->log_version, FT_LOG_VERSION);
        return -EPROTONOSUPPORT;
    }
    if (hi->role == s->cfg.role) {
        snprintf(text, TEXT_MAX, "both ends are %s", role_name(hi->role));
        return -ECONNREFUSED;
    }
    if (s->pair[0] && strcmp(hi->pair, s->pair)) {
        snprintf(text, TEXT_MAX, "pairs differ: initiator %s (host %s), "
                 "responder %s", hi->pair, hi->host, s->pair);
        return -ECONNREFUSED;
    }
    if (hi->enc != s->cfg.enc) {
        snprintf(text, TEXT_MAX, "encryption settings differ: initiator "
                 "%s, responder %s", enc_name(hi->enc),
                 enc_name(s->cfg.enc));
        return -ECONNREFUSED;
    }
    if (hi->counter != s->cfg.counter || hi->cpu != s->cfg.cpu) {
        kinds_differ(s, hi->counter, hi->cpu, text);
        return -ECONNREFUSED;
    }
    s->peer_domid = hi->domid;
    memcpy(s->peer_host, hi->host, sizeof(s->peer_host));
    rc = check_peer(s, hi->pair, s->psk, text);
    if (rc)
        return rc;
    s->version = (uint16_t)up;
    memcpy(s->pair, hi->pair, sizeof(s->pair));     /* agreed */
    s->peer_hello = *hi;
    memcpy(s->hello, frame, HELLO_FRAME);
    if (RAND_bytes(s->nonce, sizeof(s->nonce)) != 1) {
        snprintf(text, TEXT_MAX, "no random bytes for a nonce");
        return -EIO;
    }
    a.u.hello_ack = (struct xlft_hello_ack){
        .version = s->version, .role = s->cfg.role, .enc = s->cfg.enc,
        .log_version = FT_LOG_VERSION, .domid = s->cfg.domid,
        .counter = s->cfg.counter, .cpu = s->cfg.cpu,
    };
    memcpy(a.u.hello_ack.host, s->host, sizeof(s->host));
    memcpy(a.u.hello_ack.pair, s->pair, sizeof(s->pair));
    memcpy(a.u.hello_ack.nonce, s->nonce, sizeof(s->nonce));
    n = put_clear(s, &a, s->version, reply, XLFT_REPLY_MAX, text);
    if (n < 0)
        return -EIO;
    if (derive(s, hi->nonce, s->nonce, reply, (size_t)n, text) ||
        confirm_mac(s, mac_label_r, reply + n - XLFT_MAC_SIZE))
        return -EIO;
    *reply_len = (size_t)n;
    s->tx.seq++;
    s->state = S_WAIT_FINISH;
    return 0;
}

/* Initiator: the responder's HELLO_ACK; check MAC_r, answer with MAC_i. */
static int on_ack(struct xlft_session *s, const uint8_t *frame, size_t len,
                  const struct xlft_hdr *h, const struct xlft_hello_ack *a,
                  uint8_t *reply, size_t *reply_len, char *text)
{
    struct xlft_msg f = { .type = XLFT_T_HELLO_ACK };
    uint8_t mac[XLFT_MAC_SIZE];
    int n, rc;

    if (a->version < XLFT_WIRE_VERSION_MIN ||
        a->version > XLFT_WIRE_VERSION_MAX || h->version != a->version) {
        snprintf(text, TEXT_MAX, "the responder chose channel version %u "
                 "(frame version %u); the initiator offered %u to %u",
                 a->version, h->version, XLFT_WIRE_VERSION_MIN,
                 XLFT_WIRE_VERSION_MAX);
        return -EPROTONOSUPPORT;
    }
    /* Chosen: an ERROR from here on is in the version the peer reads. */
    s->version = a->version;
    s->peer_domid = a->domid;
    if (derive(s, s->nonce, a->nonce, frame, len, text) ||
        confirm_mac(s, mac_label_r, mac))
        return -EIO;
    if (CRYPTO_memcmp(mac, a->mac, sizeof(mac))) {
        snprintf(text, TEXT_MAX, "peer has a different key (the key "
                 "confirmation of domid %u does not match)", a->domid);
        return -EACCES;
    }
    if (a->log_version != FT_LOG_VERSION) {
        snprintf(text, TEXT_MAX, "log format versions differ: initiator "
                 "%u, responder %u", FT_LOG_VERSION, a->log_version);
        return -EPROTONOSUPPORT;
    }
    if (a->role == s->cfg.role || strcmp(a->pair, s->pair) ||
        a->enc != s->cfg.enc) {
        snprintf(text, TEXT_MAX, "the initiator is %s of pair %s with "
                 "encryption %s, the responder (host %s) %s of %s with %s",
                 role_name(s->cfg.role), s->pair, enc_name(s->cfg.enc),
                 a->host, role_name(a->role), a->pair, enc_name(a->enc));
        return -ECONNREFUSED;
    }
    if (a->counter != s->cfg.counter || a->cpu != s->cfg.cpu) {
        kinds_differ(s, a->counter, a->cpu, text);
        return -ECONNREFUSED;
    }
    memcpy(s->peer_host, a->host, sizeof(s->peer_host));
    rc = check_peer(s, a->pair, NULL, text);
    if (rc)
        return rc;
    f.u.hello_ack = (struct xlft_hello_ack){
        .version = s->version, .role = s->cfg.role, .enc = s->cfg.enc,
        .log_version = FT_LOG_VERSION, .domid = s->cfg.domid,
        .counter = s->cfg.counter, .cpu = s->cfg.cpu,
    };
    memcpy(f.u.hello_ack.host, s->host, sizeof(s->host));
    memcpy(f.u.hello_ack.pair, s->pair, sizeof(s->pair));
    memcpy(f.u.hello_ack.nonce, s->nonce, sizeof(s->nonce));
    if (confirm_mac(s, mac_label_i, f.u.hello_ack.mac))
        return -EIO;
    n = put_clear(s, &f, s->version, reply, XLFT_REPLY_MAX, text);
    if (n < 0)
        return -EIO;
    *reply_len = (size_t)n;
    s->tx.seq++;
    s->state = S_LIVE;
    return 0;
}

/* Responder: the initiator's HELLO_ACK, which must repeat its HELLO. */
static int on_finish(struct xlft_session *s, const struct xlft_hello_ack *a,
                     char *text)
{
    const struct xlft_hello *hi = &s->peer_hello;
    uint8_t mac[XLFT_MAC_SIZE];

    if (confirm_mac(s, mac_label_i, mac))
        return -EIO;
    if (CRYPTO_memcmp(mac, a->mac, sizeof(mac))) {
        snprintf(text, TEXT_MAX, "peer has a different key (the key "
                 "confirmation of domid %u does not match)", hi->domid);
        return -EACCES;
    }
    if (a->version != s->version || a->role != hi->role ||
        a->enc != hi->enc || a->log_version != hi->log_version ||
        a->domid != hi->domid || a->counter != hi->counter ||
        a->cpu != hi->cpu || strcmp(a->host, hi->host) ||
        strcmp(a->pair, hi->pair) ||
        memcmp(a->nonce, hi->nonce, sizeof(a->nonce))) {
        snprintf(text, TEXT_MAX, "the initiator's HELLO_ACK does not "
                 "repeat its HELLO and the chosen version %u", s->version);
        return -EPROTO;
    }
    s->state = S_LIVE;
    return 0;
}

static uint32_t err_code(int err)
{
    switch (err) {
    case -EACCES:           return XLFT_ERR_AUTH;
    case -EPROTONOSUPPORT:  return XLFT_ERR_VERSION;
    case -ECONNREFUSED:     return XLFT_ERR_CONFIG;
    default:                return XLFT_ERR_PROTOCOL;
    }
}

static const char *err_name(uint32_t code)
{
    switch (code) {
    case XLFT_ERR_VERSION:  return "version";
    case XLFT_ERR_AUTH:     return "authentication";
    case XLFT_ERR_CONFIG:   return "configuration";
    default:                return "protocol";
    }
}

/*
 * The session ends with 'err': tell the peer why, unless it told us.
 * The ERROR frame goes out sealed once the session is live.
 */
static int fail(struct xlft_session *s, int err, const char *text,
                uint8_t *reply, size_t *reply_len)
{
    struct xlft_msg e;
    int n;

    *reply_len = 0;
    if (err != -ECONNABORTED) {
        xlft_msg_error(&e, err_code(err), text);
        if (s->state == S_LIVE)
            n = seal(s, &e, reply, XLFT_REPLY_MAX, NULL, 0);
        else
            n = xlft_frame_put(&e, s->version ? (uint8_t)s->version : 1,
                               s->tx.seq, reply, XLFT_REPLY_MAX, NULL, 0);
        if (n > 0)
            *reply_len = (size_t)n;
    }
    s->error = err;
    return err;
}

static int recv_frame(struct xlft_session *s, uint8_t *frame, size_t len,
                      struct xlft_msg *m, uint8_t *reply, size_t *reply_len,
                      char *text)
{
    bool enc = s->state == S_LIVE && s->cfg.enc == XLFT_ENC_REQUIRED;
    const char *name;
    struct xlft_hdr h;
    size_t plen;
    int rc;

    rc = xlft_hdr_get(frame, len, &h, text, TEXT_MAX);
    if (rc)
        return rc;
    name = xlft_type_name(h.type);
    if (len - XLFT_HDR_SIZE < h.len) {
        snprintf(text, TEXT_MAX, "%s frame %llu cut short: %zu of %u "
                 "payload bytes", name, (unsigned long long)h.seq,
                 len - XLFT_HDR_SIZE, h.len);
        return -ENODATA;
    }
    if (len - XLFT_HDR_SIZE > h.len) {
        snprintf(text, TEXT_MAX, "%s frame %llu given with %zu bytes after "
                 "it", name, (unsigned long long)h.seq,
                 len - XLFT_HDR_SIZE - h.len);
        return -EINVAL;
    }
    if (h.seq != s->rx.seq) {
        snprintf(text, TEXT_MAX, "%s frame %llu out of sequence: expected "
                 "frame %llu (replayed, reordered or lost)", name,
                 (unsigned long long)h.seq,
                 (unsigned long long)s->rx.seq);
        return -EPROTO;
    }
    if (!!(h.flags & XLFT_F_ENCRYPTED) != enc) {
        snprintf(text, TEXT_MAX, "%s frame %llu is %sencrypted; this "
                 "session %s", name, (unsigned long long)h.seq,
                 enc ? "not " : "", enc ? "encrypts every frame" :
                 s->state == S_LIVE ? "has encryption disabled" :
                 "is in its handshake");
        return -EBADMSG;
    }
    if ((s->state == S_LIVE || s->state == S_WAIT_FINISH) &&
        h.version != s->version) {
        snprintf(text, TEXT_MAX, "%s frame %llu is version %u; the session "
                 "speaks version %u", name, (unsigned long long)h.seq,
                 h.version, s->version);
        return -EPROTO;
    }
    plen = h.len;
    if (enc) {
        if (plen < XLFT_TAG_SIZE) {
            snprintf(text, TEXT_MAX, "%s frame %llu: %zu bytes, too short "
                     "for its tag", name, (unsigned long long)h.seq, plen);
            return -EBADMSG;
        }
        plen -= XLFT_TAG_SIZE;
        rc = gcm_open(&s->rx, h.seq, frame, frame + XLFT_HDR_SIZE, plen);
        if (rc) {
            snprintf(text, TEXT_MAX, "%s frame %llu fails authentication: "
                     "altered, cut short or not from the peer", name,
                     (unsigned long long)h.seq);
            return rc;
        }
    }
    rc = xlft_payload_get(h.type, frame + XLFT_HDR_SIZE, plen, m,
                          text, TEXT_MAX);
    if (rc)
        return rc;
    s->rx.seq++;

    if (m->type == XLFT_T_ERROR) {
        snprintf(text, TEXT_MAX, "the peer ended the connection (%s "
                 "error): \"%s\"", err_name(m->u.error.code),
                 m->u.error.reason);
        return -ECONNABORTED;
    }
    switch (s->state) {
    case S_WAIT_HELLO:
        if (m->type == XLFT_T_HELLO)
            return on_hello(s, frame, &h, &m->u.hello, reply, reply_len,
                            text);
        break;
    case S_WAIT_ACK:
        if (m->type == XLFT_T_HELLO_ACK)
            return on_ack(s, frame, len, &h, &m->u.hello_ack, reply,
                          reply_len, text);
        break;
    case S_WAIT_FINISH:
        if (m->type == XLFT_T_HELLO_ACK)
            return on_finish(s, &m->u.hello_ack, text);
        break;
    case S_LIVE:
        if (m->type != XLFT_T_HELLO && m->type != XLFT_T_HELLO_ACK)
            return 1;
        break;
    case S_START:
        break;
    }
    snprintf(text, TEXT_MAX, "%s frame %llu out of turn (%s)", name,
             (unsigned long long)h.seq,
             s->state == S_LIVE ? "after the handshake" :
             s->state == S_START ? "before this side's HELLO" :
             "during the handshake");
    return -EPROTO;
}

int xlft_session_recv(struct xlft_session *s, uint8_t *frame, size_t len,
                      struct xlft_msg *m, uint8_t *reply, size_t *reply_len,
                      char *msg, size_t msglen)
{
    char text[TEXT_MAX];
    int rc;

    *reply_len = 0;
    if (s->error) {
        xlft_say(msg, msglen, "the session has failed");
        return s->error;
    }
    text[0] = '\0';
    rc = recv_frame(s, frame, len, m, reply, reply_len, text);
    if (rc < 0) {
        fail(s, rc, text, reply, reply_len);
        xlft_say(msg, msglen, "%s", text);
    }
    return rc;
}
