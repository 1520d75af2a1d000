/* Capabilities: what the process holds, and what to say when refused. */
#include <config.h>

#include "caps.h"

#include <sys/capability.h>

static bool cap_effective(cap_value_t cap)
{
	cap_t caps = cap_get_proc();
	cap_flag_value_t value = CAP_CLEAR;

	if (caps) {
		if (cap_get_flag(caps, cap, CAP_EFFECTIVE, &value) != 0)
			value = CAP_CLEAR;
		cap_free(caps);
	}
	return value == CAP_SET;
}

bool caps_have_fowner(void)
{
	static int have = -1;

	if (have < 0)
		have = cap_effective(CAP_FOWNER);
	return have;
}

const char *caps_describe(void)
{
	bool dac = cap_effective(CAP_DAC_READ_SEARCH);
	bool fowner = cap_effective(CAP_FOWNER);

	if (dac && fowner)
		return "cap_dac_read_search,cap_fowner";
	if (dac)
		return "cap_dac_read_search";
	if (fowner)
		return "cap_fowner";
	return "none";
}

void caps_explain_eperm(FILE *err)
{
	static bool explained;

	if (explained)
		return;
	explained = true;
	fputs("pagestat: note: the kernel (Linux 6.14 and later for cachestat, 5.0 and\n"
	      "  later for mincore) reports the page cache of a file only to its owner,\n"
	      "  to a user who may write it, or to a process with CAP_FOWNER.  Run\n"
	      "  pagestat as root, or let an administrator grant it the capabilities:\n"
	      "    setcap cap_dac_read_search,cap_fowner+ep \"$(command -v pagestat)\"\n",
	      err);
}
