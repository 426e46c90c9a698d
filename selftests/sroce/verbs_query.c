// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * verbs_query: the query verbs of an sroce device as an application sees
 * them, through libibverbs and the unmodified rdma-core librxe provider.
 * The answers are checked against sysfs, the netdev and the driver's
 * debugfs view of the firmware. Also: QP numbers are not reused at once, and
 * a QP may use an SRQ of its own PD only.
 *
 * Environment:
 *   SROCE_DEV     the RDMA device (the whole program skips if unset/absent)
 *   SROCE_NETDEV  its Ethernet device (GUID and MTU checks skip if unset)
 *   SROCE_IPV4    an IPv4 address of SROCE_NETDEV (its GIDs are checked)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <endian.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "kselftest_harness.h"
#include "sroce_test.h"

#define SYS_NET		"/sys/class/net"
#define DEBUGFS		"/sys/kernel/debug"
#define DEBUGFS_MAGIC	0x64626720

#define GID_STR_LEN	40	/* 8 groups of 4 hex digits, 7 colons, NUL */
#define MAX_GIDS	1024
#define NUM_PDS		64

/* RoCE headers that must fit in the netdev MTU next to a full IB MTU. */
#define ROCE_OVERHEAD	84

/*
 * Read a small text file into @buf without its trailing newline.
 * Return: 0 or a negative errno.
 */
static int read_text(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;
	int err = 0;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	if (ferror(f))
		err = errno ? -errno : -EIO;
	fclose(f);
	if (err)
		return err;
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static int read_port_attr(const char *dev, const char *attr, unsigned int idx,
			  char *buf, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), SROCE_SYS_IB "/%s/ports/1/%s/%u", dev, attr,
		 idx);
	return read_text(path, buf, len);
}

/* The format of sysfs and debugfs: "fe80:0000:...:0001". */
static void gid_to_str(const uint8_t *raw, char *buf)
{
	int i;

	for (i = 0; i < 8; i++)
		sprintf(buf + 5 * i, "%02x%02x%s", raw[2 * i], raw[2 * i + 1],
			i < 7 ? ":" : "");
}

static bool gid_is_zero(const uint8_t *raw)
{
	int i;

	for (i = 0; i < 16; i++)
		if (raw[i])
			return false;
	return true;
}

static const char *gid_type_name(unsigned int type)
{
	switch (type) {
	case IBV_GID_TYPE_ROCE_V1:
		return "IB/RoCE v1";
	case IBV_GID_TYPE_ROCE_V2:
		return "RoCE v2";
	}
	return "?";
}

/* "xxxx:xxxx:xxxx:xxxx" (sysfs node_guid) to 8 bytes in wire order. */
static int parse_guid(const char *s, uint8_t guid[8])
{
	unsigned int g[4];
	char tail;
	int i;

	if (sscanf(s, "%4x:%4x:%4x:%4x%c", &g[0], &g[1], &g[2], &g[3],
		   &tail) != 4)
		return -EINVAL;
	for (i = 0; i < 4; i++) {
		guid[2 * i] = g[i] >> 8;
		guid[2 * i + 1] = g[i] & 0xff;
	}
	return 0;
}

static int parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int m[6];
	char tail;
	int i;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &m[0], &m[1], &m[2],
		   &m[3], &m[4], &m[5], &tail) != 6)
		return -EINVAL;
	for (i = 0; i < 6; i++)
		mac[i] = m[i];
	return 0;
}

static int netdev_mac(const char *netdev, uint8_t mac[6])
{
	char path[256], buf[64];
	int err;

	snprintf(path, sizeof(path), SYS_NET "/%s/address", netdev);
	err = read_text(path, buf, sizeof(buf));
	return err ? err : parse_mac(buf, mac);
}

/* Modified EUI-64: U/L bit flipped, ff:fe in the middle. */
static void mac_to_eui64(const uint8_t mac[6], uint8_t guid[8])
{
	guid[0] = mac[0] ^ 0x02;
	guid[1] = mac[1];
	guid[2] = mac[2];
	guid[3] = 0xff;
	guid[4] = 0xfe;
	guid[5] = mac[3];
	guid[6] = mac[4];
	guid[7] = mac[5];
}

static void guid_to_str(const uint8_t guid[8], char *buf)
{
	sprintf(buf, "%02x%02x:%02x%02x:%02x%02x:%02x%02x", guid[0], guid[1],
		guid[2], guid[3], guid[4], guid[5], guid[6], guid[7]);
}

static int mtu_bytes(int ib_mtu)
{
	return 128 << ib_mtu;
}

/* The active MTU the driver must report for a netdev MTU. */
static enum ibv_mtu expected_active_mtu(unsigned int netdev_mtu)
{
	int m;

	for (m = IBV_MTU_4096; m >= IBV_MTU_256; m--)
		if ((128U << m) + ROCE_OVERHEAD <= netdev_mtu)
			return m;
	/* Nothing fits: the driver still reports the smallest IB MTU. */
	return IBV_MTU_256;
}

/*
 * Debugfs directory of @dev in @buf.
 * Return: 1 if present, 0 if debugfs is not mounted, -ENOENT if debugfs is
 * mounted but the device has no directory.
 */
static int debugfs_dir(const char *dev, char *buf, size_t len)
{
	struct statfs sfs;

	if (statfs(DEBUGFS, &sfs) || sfs.f_type != DEBUGFS_MAGIC)
		return 0;
	snprintf(buf, len, DEBUGFS "/sroce/%s", dev);
	return access(buf, F_OK) ? -ENOENT : 1;
}

struct cmd_stat {
	long long issued;
	long long failed;
};

/* One row of cmd_stats. Return: 0 or a negative errno. */
static int cmd_stat(const char *dir, const char *cmd, struct cmd_stat *st)
{
	char path[300], line[256], name[64];
	long long issued, failed, timeouts, lat;
	int err = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cmd_stats", dir);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %lld %lld %lld %lld", name, &issued,
			   &failed, &timeouts, &lat) != 5 ||
		    strcmp(name, cmd))
			continue;
		st->issued = issued;
		st->failed = failed;
		err = 0;
		break;
	}
	fclose(f);
	return err;
}

struct fw_gid {
	bool valid;
	char gid[GID_STR_LEN];
	unsigned int type;	/* IBV_GID_TYPE_* */
	int vlan;		/* -1 if untagged */
	uint8_t mac[6];
};

/*
 * Parse fw_gids into @tbl (indexed by GID index).
 * Return: number of entries, or a negative errno on an unreadable file or
 * a malformed line (whose text is left in @bad).
 */
static int read_fw_gids(const char *dir, struct fw_gid *tbl, unsigned int len,
			char *bad, size_t bad_len)
{
	char path[300], line[256], copy[256];
	int count = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/fw_gids", dir);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *tok, *save, *end;
		struct fw_gid e = { .vlan = -1 };
		unsigned long idx;

		snprintf(copy, sizeof(copy), "%s", line);
		copy[strcspn(copy, "\n")] = '\0';
		snprintf(bad, bad_len, "%s", copy);

		tok = strtok_r(copy, " ", &save);
		if (!tok)
			goto malformed;
		idx = strtoul(tok, &end, 10);
		if (*end || idx >= len || tbl[idx].valid)
			goto malformed;

		tok = strtok_r(NULL, " ", &save);
		if (!tok || strlen(tok) != GID_STR_LEN - 1)
			goto malformed;
		strcpy(e.gid, tok);

		tok = strtok_r(NULL, " ", &save);
		if (tok && !strcmp(tok, "v1"))
			e.type = IBV_GID_TYPE_ROCE_V1;
		else if (tok && !strcmp(tok, "v2"))
			e.type = IBV_GID_TYPE_ROCE_V2;
		else
			goto malformed;

		tok = strtok_r(NULL, " ", &save);
		if (tok && !strcmp(tok, "vlan")) {
			tok = strtok_r(NULL, " ", &save);
			if (!tok)
				goto malformed;
			e.vlan = strtol(tok, &end, 10);
			if (*end || e.vlan < 0 || e.vlan > 4095)
				goto malformed;
			tok = strtok_r(NULL, " ", &save);
		}
		if (!tok || parse_mac(tok, e.mac) ||
		    strtok_r(NULL, " ", &save))
			goto malformed;

		e.valid = true;
		tbl[idx] = e;
		count++;
	}
	fclose(f);
	bad[0] = '\0';
	return count;

malformed:
	fclose(f);
	return -EBADMSG;
}

/*
 * The whole program needs the device; without it there is nothing to test
 * and kselftest wants exit status 4.
 */
SROCE_REQUIRE_DEVICE();

static struct ibv_device *find_device(struct ibv_device **list,
				      const char *name)
{
	for (; list && *list; list++)
		if (!strcmp(ibv_get_device_name(*list), name))
			return *list;
	return NULL;
}

/*
 * The device is listed and its node GUID is the modified EUI-64 of the
 * netdev's MAC, in libibverbs and in sysfs alike.
 */
TEST(device_listed_with_eui64_guid)
{
	const char *name = sroce_env("SROCE_DEV");
	const char *netdev = sroce_env("SROCE_NETDEV");
	uint8_t sys_guid[8], eui[8], mac[6];
	char path[256], buf[64], want[32];
	struct ibv_device **list;
	struct ibv_device *dev;
	__be64 guid;
	int num = -1;

	list = ibv_get_device_list(&num);
	ASSERT_NE(NULL, list) TH_LOG("ibv_get_device_list: %s",
				     strerror(errno));
	dev = find_device(list, name);
	ASSERT_NE(NULL, dev) {
		TH_LOG("%s is in sysfs, not among %d listed devices",
		       name, num);
		ibv_free_device_list(list);
	}
	EXPECT_EQ(IBV_NODE_CA, dev->node_type);
	EXPECT_EQ(IBV_TRANSPORT_IB, dev->transport_type);

	guid = ibv_get_device_guid(dev);
	snprintf(path, sizeof(path), SROCE_SYS_IB "/%s/node_guid", name);
	ASSERT_EQ(0, read_text(path, buf, sizeof(buf)));
	ASSERT_EQ(0, parse_guid(buf, sys_guid)) TH_LOG("node_guid '%s'", buf);
	EXPECT_EQ(0, memcmp(&guid, sys_guid, 8)) {
		guid_to_str((uint8_t *)&guid, want);
		TH_LOG("ibv_get_device_guid %s, sysfs %s", want, buf);
	}

	if (!netdev) {
		TH_LOG("SROCE_NETDEV unset: EUI-64 not checked");
	} else {
		ASSERT_EQ(0, netdev_mac(netdev, mac));
		mac_to_eui64(mac, eui);
		guid_to_str(eui, want);
		EXPECT_EQ(0, memcmp(sys_guid, eui, 8))
			TH_LOG("node_guid %s, EUI-64 of %s is %s", buf,
			       netdev, want);
	}
	ibv_free_device_list(list);
}

FIXTURE(dev) {
	struct ibv_device **list;
	struct ibv_context *ctx;
	const char *name;
	const char *netdev;
};

FIXTURE_SETUP(dev)
{
	struct ibv_device *dev;

	self->name = sroce_env("SROCE_DEV");
	self->netdev = sroce_env("SROCE_NETDEV");
	self->list = ibv_get_device_list(NULL);
	ASSERT_NE(NULL, self->list);
	dev = find_device(self->list, self->name);
	ASSERT_NE(NULL, dev) TH_LOG("%s not listed by libibverbs", self->name);
	/* Opening means librxe accepted the driver id and uverbs ABI. */
	self->ctx = ibv_open_device(dev);
	ASSERT_NE(NULL, self->ctx) TH_LOG("ibv_open_device(%s): %s",
					  self->name, strerror(errno));
}

FIXTURE_TEARDOWN(dev)
{
	if (self->ctx)
		EXPECT_EQ(0, ibv_close_device(self->ctx));
	if (self->list)
		ibv_free_device_list(self->list);
}

TEST_F(dev, open_device)
{
	struct ibv_context *second;

	EXPECT_STREQ(self->name, ibv_get_device_name(self->ctx->device));
	EXPECT_LE(0, self->ctx->async_fd);
	EXPECT_LE(0, self->ctx->cmd_fd);

	/* A second context on the same device is independent. */
	second = ibv_open_device(self->ctx->device);
	ASSERT_NE(NULL, second) TH_LOG("second open: %s", strerror(errno));
	EXPECT_NE(self->ctx->cmd_fd, second->cmd_fd);
	EXPECT_EQ(0, ibv_close_device(second));
}

TEST_F(dev, query_device)
{
	__be64 guid = ibv_get_device_guid(self->ctx->device);
	struct ibv_device_attr attr;
	char path[256], sys_fw[64];

	memset(&attr, 0xa5, sizeof(attr));
	ASSERT_EQ(0, ibv_query_device(self->ctx, &attr));
	EXPECT_EQ(1, attr.phys_port_cnt);
	EXPECT_STREQ("0.1.0", attr.fw_ver);
	EXPECT_LT(0, attr.max_pd);
	EXPECT_EQ(guid, attr.node_guid)
		TH_LOG("node_guid %#" PRIx64 ", device list says %#" PRIx64,
		       be64toh(attr.node_guid), be64toh(guid));
	EXPECT_EQ(attr.node_guid, attr.sys_image_guid);
	EXPECT_EQ(1, attr.max_pkeys);

	/* ib_core formats sysfs fw_ver through the driver, librxe by itself. */
	snprintf(path, sizeof(path), SROCE_SYS_IB "/%s/fw_ver", self->name);
	ASSERT_EQ(0, read_text(path, sys_fw, sizeof(sys_fw)));
	EXPECT_STREQ(sys_fw, attr.fw_ver);
}

TEST_F(dev, query_device_ex)
{
	struct ibv_query_device_ex_input in = { .comp_mask = 0 };
	struct ibv_device_attr_ex ex, ex2;
	struct ibv_device_attr attr;

	ASSERT_EQ(0, ibv_query_device(self->ctx, &attr));
	memset(&ex, 0, sizeof(ex));
	ASSERT_EQ(0, ibv_query_device_ex(self->ctx, NULL, &ex));
	EXPECT_STREQ(attr.fw_ver, ex.orig_attr.fw_ver);
	EXPECT_EQ(attr.node_guid, ex.orig_attr.node_guid);
	EXPECT_EQ(attr.sys_image_guid, ex.orig_attr.sys_image_guid);
	EXPECT_EQ(attr.phys_port_cnt, ex.orig_attr.phys_port_cnt);
	EXPECT_EQ(attr.max_pd, ex.orig_attr.max_pd);
	EXPECT_EQ(attr.max_qp, ex.orig_attr.max_qp);
	EXPECT_EQ(attr.max_cq, ex.orig_attr.max_cq);
	EXPECT_EQ(attr.max_mr, ex.orig_attr.max_mr);
	EXPECT_EQ(attr.vendor_id, ex.orig_attr.vendor_id);
	EXPECT_EQ(attr.vendor_part_id, ex.orig_attr.vendor_part_id);

	/* The same with an explicit, empty input. */
	memset(&ex2, 0, sizeof(ex2));
	ASSERT_EQ(0, ibv_query_device_ex(self->ctx, &in, &ex2));
	EXPECT_EQ(ex.orig_attr.node_guid, ex2.orig_attr.node_guid);
	EXPECT_EQ(ex.orig_attr.max_pd, ex2.orig_attr.max_pd);
	EXPECT_EQ(ex.device_cap_flags_ex, ex2.device_cap_flags_ex);
}

TEST_F(dev, query_port)
{
	struct ibv_port_attr attr;
	char path[256], buf[32];
	unsigned int mtu;
	int want;

	memset(&attr, 0xa5, sizeof(attr));
	ASSERT_EQ(0, ibv_query_port(self->ctx, 1, &attr));
	EXPECT_EQ(IBV_PORT_ACTIVE, (int)attr.state);
	EXPECT_EQ(IBV_LINK_LAYER_ETHERNET, attr.link_layer);
	EXPECT_LT(0, attr.gid_tbl_len);
	EXPECT_EQ(1, attr.pkey_tbl_len);
	EXPECT_LE(attr.active_mtu, attr.max_mtu);

	if (!self->netdev) {
		TH_LOG("SROCE_NETDEV unset: active MTU not checked");
	} else {
		snprintf(path, sizeof(path), SYS_NET "/%s/mtu", self->netdev);
		ASSERT_EQ(0, read_text(path, buf, sizeof(buf)));
		mtu = strtoul(buf, NULL, 10);
		want = expected_active_mtu(mtu);
		EXPECT_EQ(want, (int)attr.active_mtu)
			TH_LOG("netdev MTU %u: active MTU %d, want %d", mtu,
			       mtu_bytes(attr.active_mtu),
			       mtu_bytes(want));
	}

	/* One port only: port 2 (and the invalid port 0) must be refused. */
	EXPECT_NE(0, ibv_query_port(self->ctx, 2, &attr));
	EXPECT_NE(0, ibv_query_port(self->ctx, 0, &attr));
}

TEST_F(dev, query_pkey)
{
	__be16 pkey = 0;

	ASSERT_EQ(0, ibv_query_pkey(self->ctx, 1, 0, &pkey));
	EXPECT_EQ(0xffff, be16toh(pkey));
	/* pkey_tbl_len is 1. */
	EXPECT_NE(0, ibv_query_pkey(self->ctx, 1, 1, &pkey));
}

/*
 * Every GID index through both query verbs against sysfs, the valid ones
 * against the firmware's table (debugfs), and the IPv4 address as v1 and
 * v2 GIDs.
 */
TEST_F_TIMEOUT(dev, gid_table, 300)
{
	static struct fw_gid fw[MAX_GIDS];
	static bool valid[MAX_GIDS];
	static unsigned int type[MAX_GIDS];
	static char gid_str[MAX_GIDS][GID_STR_LEN];
	const char *ipv4 = sroce_env("SROCE_IPV4");
	char sys[64], dir[256], bad[256], ndev[IF_NAMESIZE];
	struct ibv_gid_entry table[MAX_GIDS];
	unsigned int i, nvalid = 0, len;
	bool v4_v1 = false, v4_v2 = false;
	uint8_t v4gid[16] = { 0 };
	struct ibv_port_attr pattr;
	int ret, fw_count;
	ssize_t n;

	ASSERT_EQ(0, ibv_query_port(self->ctx, 1, &pattr));
	len = pattr.gid_tbl_len;
	ASSERT_LT(0U, len);
	ASSERT_GE((unsigned int)MAX_GIDS, len);

	if (ipv4) {
		ASSERT_EQ(1, inet_pton(AF_INET, ipv4, v4gid + 12))
			TH_LOG("SROCE_IPV4 '%s' is not an IPv4 address", ipv4);
		v4gid[10] = 0xff;
		v4gid[11] = 0xff;
	}

	for (i = 0; i < len; i++) {
		struct ibv_gid_entry e;
		union ibv_gid gid;
		char str[GID_STR_LEN];

		memset(&gid, 0xa5, sizeof(gid));
		ASSERT_EQ(0, ibv_query_gid(self->ctx, 1, i, &gid))
			TH_LOG("ibv_query_gid index %u", i);
		gid_to_str(gid.raw, str);
		ASSERT_EQ(0, read_port_attr(self->name, "gids", i, sys,
					    sizeof(sys)));
		EXPECT_STREQ(sys, str) TH_LOG("GID index %u", i);

		memset(&e, 0xa5, sizeof(e));
		ret = ibv_query_gid_ex(self->ctx, 1, i, &e, 0);
		if (ret == ENODATA) {
			/* Empty: zero everywhere, no type in sysfs. */
			EXPECT_TRUE(gid_is_zero(gid.raw))
				TH_LOG("index %u: ibv_query_gid %s but ibv_query_gid_ex says empty",
				       i, str);
			EXPECT_NE(0, read_port_attr(self->name,
						    "gid_attrs/types", i, sys,
						    sizeof(sys)))
				TH_LOG("empty index %u has type '%s'", i, sys);
			continue;
		}
		ASSERT_EQ(0, ret) TH_LOG("ibv_query_gid_ex index %u: %s", i,
					 strerror(ret));
		EXPECT_EQ(i, e.gid_index);
		EXPECT_EQ(1U, e.port_num);
		EXPECT_EQ(0, memcmp(e.gid.raw, gid.raw, 16))
			TH_LOG("index %u: the two query verbs disagree", i);
		EXPECT_FALSE(gid_is_zero(e.gid.raw));
		ASSERT_EQ(0, read_port_attr(self->name, "gid_attrs/types", i,
					    sys, sizeof(sys)));
		EXPECT_STREQ(sys, gid_type_name(e.gid_type))
			TH_LOG("index %u: type %u", i, e.gid_type);
		ASSERT_EQ(0, read_port_attr(self->name, "gid_attrs/ndevs", i,
					    sys, sizeof(sys)));
		EXPECT_STREQ(sys, if_indextoname(e.ndev_ifindex, ndev) ?: "?")
			TH_LOG("index %u: ifindex %u", i, e.ndev_ifindex);

		valid[i] = true;
		type[i] = e.gid_type;
		strcpy(gid_str[i], str);
		nvalid++;
		if (ipv4 && !memcmp(e.gid.raw, v4gid, 16)) {
			v4_v1 |= e.gid_type == IBV_GID_TYPE_ROCE_V1;
			v4_v2 |= e.gid_type == IBV_GID_TYPE_ROCE_V2;
		}
	}
	/* gid_tbl_len is the size of the sysfs table, no more, no less. */
	EXPECT_NE(0, read_port_attr(self->name, "gids", len, sys, sizeof(sys)));
	EXPECT_NE(0, ibv_query_gid_ex(self->ctx, 1, len, table, 0));
	EXPECT_LT(0U, nvalid);

	TH_LOG("%u of %u GID entries valid", nvalid, len);
	n = ibv_query_gid_table(self->ctx, table, MAX_GIDS, 0);
	ASSERT_EQ((ssize_t)nvalid, n);
	for (i = 0; i < n; i++) {
		unsigned int idx = table[i].gid_index;

		ASSERT_GT(len, idx);
		EXPECT_TRUE(valid[idx]) TH_LOG("gid table lists index %u", idx);
		EXPECT_EQ(type[idx], table[i].gid_type);
	}

	if (ipv4) {
		EXPECT_TRUE(v4_v1) TH_LOG("no RoCE v1 GID ::ffff:%s", ipv4);
		EXPECT_TRUE(v4_v2) TH_LOG("no RoCE v2 GID ::ffff:%s", ipv4);
	} else {
		TH_LOG("SROCE_IPV4 unset: IPv4 GIDs not checked");
	}

	ret = debugfs_dir(self->name, dir, sizeof(dir));
	if (!ret) {
		TH_LOG("debugfs not mounted: firmware table not checked");
		return;
	}
	ASSERT_EQ(1, ret) TH_LOG("debugfs has no %s", dir);
	fw_count = read_fw_gids(dir, fw, MAX_GIDS, bad, sizeof(bad));
	ASSERT_LE(0, fw_count) TH_LOG("fw_gids: %s, line '%s'",
				      strerror(-fw_count), bad);
	EXPECT_EQ(nvalid, (unsigned int)fw_count);
	for (i = 0; i < MAX_GIDS; i++) {
		if (!fw[i].valid && !(i < len && valid[i]))
			continue;
		EXPECT_TRUE(i < len && valid[i])
			TH_LOG("firmware has %s at index %u, ib_core has none",
			       fw[i].gid, i);
		EXPECT_TRUE(fw[i].valid)
			TH_LOG("ib_core has %s at index %u, firmware has none",
			       gid_str[i], i);
		if (!fw[i].valid || i >= len || !valid[i])
			continue;
		EXPECT_STREQ(gid_str[i], fw[i].gid) TH_LOG("index %u", i);
		EXPECT_EQ(type[i], fw[i].type) TH_LOG("index %u", i);
	}
}

static void read_pd_stats(struct __test_metadata *_metadata, const char *dir,
			  struct cmd_stat *alloc, struct cmd_stat *dealloc)
{
	ASSERT_EQ(0, cmd_stat(dir, "ALLOC_PD", alloc));
	ASSERT_EQ(0, cmd_stat(dir, "DEALLOC_PD", dealloc));
}

/*
 * Each PD is exactly one ALLOC_PD and one DEALLOC_PD firmware command, and
 * none fails.
 */
TEST_F(dev, pd_alloc_free)
{
	struct cmd_stat a0, d0, a1, d1, a2, d2;
	struct ibv_pd *pd[NUM_PDS];
	bool stats;
	char dir[256];
	int i, j, ret;

	ret = debugfs_dir(self->name, dir, sizeof(dir));
	ASSERT_LE(0, ret) TH_LOG("debugfs has no %s", dir);
	stats = ret;
	if (!stats)
		TH_LOG("debugfs not mounted: command counts not checked");
	else
		read_pd_stats(_metadata, dir, &a0, &d0);

	for (i = 0; i < NUM_PDS; i++) {
		pd[i] = ibv_alloc_pd(self->ctx);
		ASSERT_NE(NULL, pd[i]) TH_LOG("PD %d: %s", i, strerror(errno));
		EXPECT_EQ(self->ctx, pd[i]->context);
		for (j = 0; j < i; j++)
			EXPECT_NE(pd[j]->handle, pd[i]->handle);
	}
	if (stats) {
		read_pd_stats(_metadata, dir, &a1, &d1);
		EXPECT_EQ(a0.issued + NUM_PDS, a1.issued);
		EXPECT_EQ(d0.issued, d1.issued);
	}

	for (i = 0; i < NUM_PDS; i++)
		EXPECT_EQ(0, ibv_dealloc_pd(pd[i])) TH_LOG("PD %d", i);

	if (stats) {
		read_pd_stats(_metadata, dir, &a2, &d2);
		EXPECT_EQ(a0.issued + NUM_PDS, a2.issued);
		EXPECT_EQ(d0.issued + NUM_PDS, d2.issued);
		EXPECT_EQ(a0.failed, a2.failed);
		EXPECT_EQ(d0.failed, d2.failed);
	}
}

/* Completion queues: librxe maps each ring, so a bad layout fails here. */
static void read_cq_stats(struct __test_metadata *_metadata, const char *dir,
			  struct cmd_stat st[3])
{
	ASSERT_EQ(0, cmd_stat(dir, "CREATE_CQ", &st[0]));
	ASSERT_EQ(0, cmd_stat(dir, "DESTROY_CQ", &st[1]));
	ASSERT_EQ(0, cmd_stat(dir, "RESIZE_CQ", &st[2]));
}

static bool is_pow2(unsigned int x)
{
	return x && !(x & (x - 1));
}

TEST_F(dev, cq_create_resize_destroy)
{
	struct ibv_device_attr attr;
	struct cmd_stat before[3], after[3];
	struct ibv_comp_channel *ch;
	struct ibv_wc wc;
	struct ibv_cq *cq;
	int sizes[5] = { 1, 2, 100, 4096, 0 };
	bool stats;
	char dir[256];
	int i, ret;

	ASSERT_EQ(0, ibv_query_device(self->ctx, &attr));
	ASSERT_LT(0, attr.max_cqe);
	sizes[4] = attr.max_cqe;
	ret = debugfs_dir(self->name, dir, sizeof(dir));
	ASSERT_LE(0, ret);
	stats = ret;
	if (stats)
		read_cq_stats(_metadata, dir, before);

	for (i = 0; i < 5; i++) {
		cq = ibv_create_cq(self->ctx, sizes[i], NULL, NULL, 0);
		ASSERT_NE(NULL, cq) TH_LOG("cqe %d: %s", sizes[i],
					   strerror(errno));
		EXPECT_LE(sizes[i], cq->cqe);
		EXPECT_TRUE(is_pow2(cq->cqe + 1)) TH_LOG("cqe %d", cq->cqe);
		EXPECT_EQ(0, ibv_poll_cq(cq, 1, &wc));
		EXPECT_EQ(0, ibv_destroy_cq(cq));
	}

	/* Refused before they reach the firmware. */
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_cq(self->ctx, attr.max_cqe + 1, NULL,
				      NULL, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_cq(self->ctx, 16, NULL, NULL,
				      self->ctx->num_comp_vectors));
	EXPECT_EQ(EINVAL, errno);

	cq = ibv_create_cq(self->ctx, 16, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	EXPECT_EQ(0, ibv_resize_cq(cq, 1000));
	EXPECT_LE(1000, cq->cqe);
	EXPECT_EQ(0, ibv_poll_cq(cq, 1, &wc));
	EXPECT_EQ(0, ibv_resize_cq(cq, 8));
	EXPECT_LE(8, cq->cqe);
	EXPECT_GT(1000, cq->cqe);
	EXPECT_EQ(0, ibv_poll_cq(cq, 1, &wc));
	EXPECT_NE(0, ibv_resize_cq(cq, attr.max_cqe + 1));
	EXPECT_EQ(0, ibv_destroy_cq(cq));

	ch = ibv_create_comp_channel(self->ctx);
	ASSERT_NE(NULL, ch);
	cq = ibv_create_cq(self->ctx, 64, NULL, ch, 0);
	ASSERT_NE(NULL, cq);
	EXPECT_EQ(0, ibv_req_notify_cq(cq, 0));
	EXPECT_EQ(0, ibv_req_notify_cq(cq, 1));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	EXPECT_EQ(0, ibv_destroy_comp_channel(ch));

	if (stats) {
		read_cq_stats(_metadata, dir, after);
		EXPECT_EQ(before[0].issued + 7, after[0].issued);
		EXPECT_EQ(before[1].issued + 7, after[1].issued);
		EXPECT_EQ(before[2].issued + 2, after[2].issued);
		EXPECT_EQ(before[0].failed, after[0].failed);
		EXPECT_EQ(before[1].failed, after[1].failed);
		EXPECT_EQ(before[2].failed, after[2].failed);
	}
}

/* A minimal RC QP on @pd, receiving through @srq if not NULL. */
static struct ibv_qp *make_rc_qp(struct ibv_pd *pd, struct ibv_cq *cq,
				 struct ibv_srq *srq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = srq ? 0 : 4,
			 .max_send_sge = 1, .max_recv_sge = srq ? 0 : 1 },
	};

	return ibv_create_qp(pd, &init);
}

#define QPN_ROUNDS	8

/*
 * A QP number just freed is not handed out again at once: stale
 * completions and packets still in flight for the old QP must not reach
 * its successor. Each of QPN_ROUNDS create/destroy cycles gets a number
 * no earlier cycle had.
 */
TEST_F(dev, qpn_not_reused_at_once)
{
	uint32_t qpn[QPN_ROUNDS];
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int i, j;

	pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, pd);
	cq = ibv_create_cq(self->ctx, 16, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	for (i = 0; i < QPN_ROUNDS; i++) {
		qp = make_rc_qp(pd, cq, NULL);
		ASSERT_NE(NULL, qp) TH_LOG("QP %d: %s", i, strerror(errno));
		qpn[i] = qp->qp_num;
		ASSERT_EQ(0, ibv_destroy_qp(qp));
		for (j = 0; j < i; j++) {
			EXPECT_NE(qpn[j], qpn[i])
				TH_LOG("cycle %d got QPN %#x again (cycle %d)",
				       i, qpn[i], j);
		}
	}
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
}

/*
 * A QP receives through an SRQ of its own protection domain only: one of
 * another PD is refused with EINVAL, and the same SRQ still serves a QP of
 * its own PD.
 */
TEST_F(dev, qp_with_srq_of_other_pd_refused)
{
	struct ibv_srq_init_attr sattr = {
		.attr = { .max_wr = 16, .max_sge = 1 },
	};
	struct ibv_pd *pd1, *pd2;
	struct ibv_srq *srq;
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	pd1 = ibv_alloc_pd(self->ctx);
	pd2 = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, pd1);
	ASSERT_NE(NULL, pd2);
	cq = ibv_create_cq(self->ctx, 16, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	srq = ibv_create_srq(pd1, &sattr);
	ASSERT_NE(NULL, srq) TH_LOG("create_srq: %s", strerror(errno));

	errno = 0;
	qp = make_rc_qp(pd2, cq, srq);
	EXPECT_EQ(NULL, qp) TH_LOG("QP of PD 2 accepted the SRQ of PD 1");
	if (qp) {
		EXPECT_EQ(0, ibv_destroy_qp(qp));
	} else {
		EXPECT_EQ(EINVAL, errno) TH_LOG("errno %d (%s)", errno,
						strerror(errno));
	}

	qp = make_rc_qp(pd1, cq, srq);
	EXPECT_NE(NULL, qp) TH_LOG("same PD: %s", strerror(errno));
	if (qp) {
		EXPECT_EQ(0, ibv_destroy_qp(qp));
	}

	EXPECT_EQ(0, ibv_destroy_srq(srq));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	EXPECT_EQ(0, ibv_dealloc_pd(pd2));
	EXPECT_EQ(0, ibv_dealloc_pd(pd1));
}

TEST_HARNESS_MAIN
