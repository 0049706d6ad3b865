#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Upstream NTB clients across two VMs cabled through the emulated NTB.
. ./clients.sh
