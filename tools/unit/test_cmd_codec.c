// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Unit tests of drivers/lib/cmd_codec.c and the ring phase helper. */
#include "lib/sroce_lib.h"
#include "unit.h"

static void test_status_to_errno(void)
{
	CHECK_EQ(sroce_fw_status_to_errno(SROCE_FW_OK), 0);
	CHECK_EQ(sroce_fw_status_to_errno(SROCE_FW_ERR_BAD_OPCODE), -EOPNOTSUPP);
	CHECK_EQ(sroce_fw_status_to_errno(SROCE_FW_ERR_BAD_LENGTH), -EINVAL);
	CHECK_EQ(sroce_fw_status_to_errno(SROCE_FW_ERR_BAD_PARAM), -EINVAL);
	CHECK_EQ(sroce_fw_status_to_errno(SROCE_FW_ERR_NO_RESOURCES), -ENOSPC);
	CHECK_EQ(sroce_fw_status_to_errno(SROCE_FW_ERR_NOT_FOUND), -ENOENT);
	CHECK_EQ(sroce_fw_status_to_errno(SROCE_FW_ERR_BUSY), -EBUSY);
	CHECK_EQ(sroce_fw_status_to_errno(SROCE_FW_ERR_BAD_STATE), -EPERM);
	CHECK_EQ(sroce_fw_status_to_errno(SROCE_FW_ERR_INTERNAL), -EIO);
	/* A status this driver does not know is a device fault. */
	CHECK_EQ(sroce_fw_status_to_errno(SROCE_FW_NUM_STATUS), -EIO);
	CHECK_EQ(sroce_fw_status_to_errno(0xffff), -EIO);
}

static void test_every_status_maps_to_negative(void)
{
	unsigned int st;

	for (st = 1; st < 0x10000; st++)
		CHECK(sroce_fw_status_to_errno(st) < 0);
}

static void test_opcode_table(void)
{
	unsigned int i;

	for (i = 0; i < SROCE_NUM_CMDS; i++) {
		unsigned int op = sroce_cmd_opcode(i);

		CHECK(op != 0);
		CHECK_EQ(sroce_cmd_index(op), i);
		CHECK(strcmp(sroce_cmd_name(i), "INVALID") != 0);
		CHECK(sroce_cmd_req_len(i) <= SROCE_CMD_PAYLOAD_MAX);
		CHECK(sroce_cmd_resp_len(i) <= SROCE_CMD_PAYLOAD_MAX);
	}
	CHECK_EQ(sroce_cmd_index(0), SROCE_CMDI_INVALID);
	CHECK_EQ(sroce_cmd_index(0xffff), SROCE_CMDI_INVALID);
	CHECK(strcmp(sroce_cmd_name(SROCE_CMDI_INVALID), "INVALID") == 0);
	CHECK_EQ(sroce_cmd_req_len(SROCE_CMDI_INVALID), 0);
	CHECK_EQ(sroce_cmd_resp_len(SROCE_NUM_CMDS + 7), 0);
	CHECK_EQ(sroce_cmd_req_len(SROCE_CMDI_ADD_GID),
		 sizeof(struct sroce_add_gid_req));
	CHECK_EQ(sroce_cmd_resp_len(SROCE_CMDI_QUERY_DEVICE),
		 sizeof(struct sroce_query_device_resp));
}

static void test_encode_decode_round_trip(void)
{
	struct sroce_add_gid_req req = { .index = cpu_to_le32(17), .port = 1,
					 .gid_type = SROCE_GID_ROCE_V2 };
	struct sroce_cmd_entry e;
	unsigned int index;
	u16 id;

	memset(&e, 0xa5, sizeof(e));
	CHECK_EQ(sroce_cmd_encode(&e, SROCE_CMD_ADD_GID, 0x1234, &req,
				  sizeof(req)), 0);
	CHECK_EQ(le16_to_cpu(e.opcode), SROCE_CMD_ADD_GID);
	CHECK_EQ(le16_to_cpu(e.req_len), sizeof(req));
	CHECK_EQ(le16_to_cpu(e.flags), 0);
	CHECK(!memcmp(e.payload, &req, sizeof(req)));
	/* The rest of the slot is cleared, not left with old contents. */
	CHECK_EQ(e.payload[sizeof(req)], 0);
	CHECK_EQ(e.payload[SROCE_CMD_PAYLOAD_MAX - 1], 0);

	CHECK_EQ(sroce_cmd_decode(&e, &index, &id), SROCE_FW_OK);
	CHECK_EQ(index, SROCE_CMDI_ADD_GID);
	CHECK_EQ(id, 0x1234);
}

static void test_encode_rejects_bad_requests(void)
{
	struct sroce_cmd_entry e;
	u8 buf[SROCE_CMD_PAYLOAD_MAX] = { 0 };

	CHECK_EQ(sroce_cmd_encode(&e, 0x7777, 1, NULL, 0), -EOPNOTSUPP);
	CHECK_EQ(sroce_cmd_encode(&e, SROCE_CMD_ADD_GID, 1, buf, 4), -EINVAL);
	CHECK_EQ(sroce_cmd_encode(&e, SROCE_CMD_ADD_GID, 1, NULL,
				  sizeof(struct sroce_add_gid_req)), -EINVAL);
	CHECK_EQ(sroce_cmd_encode(&e, SROCE_CMD_QUERY_DEVICE, 1, buf, 1),
		 -EINVAL);
	CHECK_EQ(sroce_cmd_encode(&e, SROCE_CMD_QUERY_DEVICE, 1, NULL, 0), 0);
}

static void test_decode_rejects_hostile_entries(void)
{
	struct sroce_cmd_entry e;
	unsigned int index;
	u16 id;

	memset(&e, 0, sizeof(e));
	e.opcode = cpu_to_le16(0x0999);
	e.cmd_id = cpu_to_le16(42);
	CHECK_EQ(sroce_cmd_decode(&e, &index, &id), SROCE_FW_ERR_BAD_OPCODE);
	/* The id survives so that the failure can still be completed. */
	CHECK_EQ(id, 42);

	sroce_cmd_encode(&e, SROCE_CMD_QUERY_PORT, 7, &e.payload,
			 sizeof(struct sroce_query_port_req));
	e.req_len = cpu_to_le16(SROCE_CMD_PAYLOAD_MAX + 1);
	CHECK_EQ(sroce_cmd_decode(&e, &index, &id), SROCE_FW_ERR_BAD_LENGTH);
	e.req_len = cpu_to_le16(sizeof(struct sroce_query_port_req) - 1);
	CHECK_EQ(sroce_cmd_decode(&e, &index, &id), SROCE_FW_ERR_BAD_LENGTH);
	e.req_len = cpu_to_le16(sizeof(struct sroce_query_port_req));
	e.flags = cpu_to_le16(0x8000);
	CHECK_EQ(sroce_cmd_decode(&e, &index, &id), SROCE_FW_ERR_BAD_LENGTH);
	e.flags = 0;
	CHECK_EQ(sroce_cmd_decode(&e, &index, &id), SROCE_FW_OK);
}

static void test_ring_phase(void)
{
	/* Depth 4: positions 0-3 phase 1, 4-7 phase 0, 8-11 phase 1. */
	CHECK_EQ(sroce_ring_phase(0, 2), 1);
	CHECK_EQ(sroce_ring_phase(3, 2), 1);
	CHECK_EQ(sroce_ring_phase(4, 2), 0);
	CHECK_EQ(sroce_ring_phase(7, 2), 0);
	CHECK_EQ(sroce_ring_phase(8, 2), 1);
	/* Free-running u32 positions wrap without breaking the alternation. */
	CHECK_EQ(sroce_ring_phase(0xffffffffu, 2), 0);
	CHECK_EQ(sroce_ring_phase(0xffffffffu + 1u, 2), 1);
}

const struct unit_test cmd_codec_tests[] = {
	{ "cmd_codec/status_to_errno", test_status_to_errno },
	{ "cmd_codec/every_status_negative", test_every_status_maps_to_negative },
	{ "cmd_codec/opcode_table", test_opcode_table },
	{ "cmd_codec/encode_decode_round_trip", test_encode_decode_round_trip },
	{ "cmd_codec/encode_rejects_bad_requests", test_encode_rejects_bad_requests },
	{ "cmd_codec/decode_rejects_hostile_entries", test_decode_rejects_hostile_entries },
	{ "cmd_codec/ring_phase", test_ring_phase },
	{ NULL, NULL },
};
